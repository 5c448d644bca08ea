import { beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../lib/auth/authenticate';
import { mintJwt, revokeCredential } from '../../lib/auth/credentials';
import { StorageUnavailableError } from '../../lib/errors';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import {
  AUDIENCE,
  createJwtFixture,
  createServiceTokenFixture,
  createTestStore,
  expectAuthenticationError,
  type JwtFixture,
  signEs256,
  signHs256,
  TEST_CONFIG,
  unix,
  validClaims,
  validHeader,
} from './fixtures';

const store = createTestStore();
const authenticator = createAuthenticator({ config: TEST_CONFIG, credentials: store });
let appA: JwtFixture;
let appB: JwtFixture;

beforeAll(async () => {
  appA = await createJwtFixture(store);
  appB = await createJwtFixture(store);
});

function bearer(token: string): string {
  return `Bearer ${token}`;
}

function tokenWith(fixture: JwtFixture, changes: Record<string, unknown>, remove: string[] = []): string {
  const claims = { ...validClaims(fixture), ...changes };
  for (const name of remove) delete claims[name];
  return signEs256(validHeader(fixture), claims, fixture.privateKeyPem);
}

describe('JWT authentication: accepted tokens', () => {
  it('accepts a token minted with the credential key and returns the principal', async () => {
    // Prepare
    const token = mintJwt({
      appId: appA.app.app_id,
      credentialId: appA.credentialId,
      privateKeyPem: appA.privateKeyPem,
      audience: AUDIENCE,
      subject: 'user-7',
    });

    // Act
    const principal = await authenticator.authenticate(bearer(token));

    // Assess
    expect(principal).toEqual({
      appId: appA.app.app_id,
      credentialId: appA.credentialId,
      tokenKind: 'JWT',
      subject: 'user-7',
    });
  });

  it('defaults sub to the app id and accepts a lowercase scheme', async () => {
    const token = mintJwt({
      appId: appA.app.app_id,
      credentialId: appA.credentialId,
      privateKeyPem: appA.privateKeyPem,
      audience: AUDIENCE,
    });

    const principal = await authenticator.authenticate(`bearer ${token}`);

    expect(principal.subject).toBe(appA.app.app_id);
  });

  it('accepts a token whose nbf has passed', async () => {
    const principal = await authenticator.authenticate(
      bearer(tokenWith(appA, { nbf: unix(new Date()) - 10 })),
    );

    expect(principal.appId).toBe(appA.app.app_id);
  });

  it('tolerates the configured clock skew on exp (expired 30 s ago, skew 60 s)', async () => {
    const now = unix(new Date());

    const principal = await authenticator.authenticate(
      bearer(tokenWith(appA, { iat: now - 3630, exp: now - 30 })),
    );

    expect(principal.credentialId).toBe(appA.credentialId);
  });

  it('accepts a lifetime of exactly the configured maximum', async () => {
    const now = unix(new Date());

    const principal = await authenticator.authenticate(
      bearer(tokenWith(appA, { iat: now, exp: now + 86_400 })),
    );

    expect(principal.appId).toBe(appA.app.app_id);
  });
});

describe('JWT authentication: rejected requests', () => {
  it('reports a missing header as missing_token', async () => {
    await expectAuthenticationError(authenticator.authenticate(undefined), {
      code: 'missingToken',
      message: /missing/,
    });
    await expectAuthenticationError(authenticator.authenticate('   '), {
      code: 'missingToken',
      message: /missing/,
    });
  });

  it('rejects another scheme', async () => {
    const token = tokenWith(appA, {});

    await expectAuthenticationError(authenticator.authenticate(`Basic ${token}`), {
      message: 'The Authorization header must have the form "Bearer <token>"',
    });
    await expectAuthenticationError(authenticator.authenticate('Bearer'), {
      message: 'The Authorization header must have the form "Bearer <token>"',
    });
  });

  it('rejects garbage', async () => {
    await expectAuthenticationError(authenticator.authenticate('Bearer not-a-token'), {
      message: 'The token is neither a JWT nor a service token',
    });
    await expectAuthenticationError(authenticator.authenticate('Bearer abc.def.ghi'), {
      message: 'The token signature is not valid',
    });
    const notJson = `${Buffer.from('nope').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.${'A'.repeat(86)}`;
    await expectAuthenticationError(authenticator.authenticate(bearer(notJson)), {
      message: 'The token is not a well-formed JWT',
    });
  });

  it('rejects alg none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', kid: appA.credentialId })).toString(
      'base64url',
    );
    const payload = Buffer.from(JSON.stringify(validClaims(appA))).toString('base64url');

    await expectAuthenticationError(authenticator.authenticate(bearer(`${header}.${payload}.`)), {
      message: 'The token is neither a JWT nor a service token',
    });
    // With a dummy signature, the token has the JWT shape and reaches the algorithm check.
    await expectAuthenticationError(
      authenticator.authenticate(bearer(`${header}.${payload}.${'A'.repeat(86)}`)),
      {
        message: 'The token must be signed with ES256',
      },
    );
  });

  it('rejects HS256 signed with the public key as the HMAC secret', async () => {
    const token = signHs256({ ...validHeader(appA), alg: 'HS256' }, validClaims(appA), appA.publicKeyPem);

    await expectAuthenticationError(authenticator.authenticate(bearer(token)), {
      message: /The token (must be signed with ES256|signature is not valid)/,
    });
  });

  it('rejects HS256 even when the signature has the ES256 length', async () => {
    // An HMAC-SHA256 signature has 43 characters and fails the length check first; with 86
    // characters the token reaches, and fails, the algorithm check.
    const token = signHs256({ ...validHeader(appA), alg: 'HS256' }, validClaims(appA), appA.publicKeyPem);
    const [header, payload] = token.split('.');

    await expectAuthenticationError(
      authenticator.authenticate(bearer(`${header}.${payload}.${'B'.repeat(86)}`)),
      {
        message: 'The token must be signed with ES256',
      },
    );
  });

  it('rejects an expired token', async () => {
    const twoHoursAgo = new Date(Date.now() - 7200_000);
    const token = mintJwt({
      appId: appA.app.app_id,
      credentialId: appA.credentialId,
      privateKeyPem: appA.privateKeyPem,
      audience: AUDIENCE,
      now: twoHoursAgo,
    });

    await expectAuthenticationError(authenticator.authenticate(bearer(token)), {
      message: 'The token has expired',
    });
  });

  it('rejects a token expired by more than the clock skew (90 s)', async () => {
    const now = unix(new Date());

    await expectAuthenticationError(
      authenticator.authenticate(bearer(tokenWith(appA, { iat: now - 3690, exp: now - 90 }))),
      { message: 'The token has expired' },
    );
  });

  it('rejects a token whose nbf is in the future', async () => {
    await expectAuthenticationError(
      authenticator.authenticate(bearer(tokenWith(appA, { nbf: unix(new Date()) + 600 }))),
      { message: 'The token is not valid yet (nbf)' },
    );
  });

  it('rejects a token issued in the future', async () => {
    const later = unix(new Date()) + 600;

    await expectAuthenticationError(
      authenticator.authenticate(bearer(tokenWith(appA, { iat: later, exp: later + 60 }))),
      {
        message: 'The token is issued in the future (iat)',
      },
    );
  });

  it('rejects a lifetime longer than the configured maximum', async () => {
    const now = unix(new Date());

    await expectAuthenticationError(
      authenticator.authenticate(bearer(tokenWith(appA, { iat: now, exp: now + 86_401 }))),
      { message: 'The token lifetime (exp − iat) exceeds 86400 seconds' },
    );
  });

  it('follows a configured shorter maximum lifetime', async () => {
    const strict = createAuthenticator({
      config: { ...TEST_CONFIG, jwtMaxLifetimeSeconds: 300 },
      credentials: store,
    });

    await expectAuthenticationError(strict.authenticate(bearer(tokenWith(appA, {}))), {
      message: 'The token lifetime (exp − iat) exceeds 300 seconds',
    });
  });

  it.each([
    ['exp', 'The token has no exp claim'],
    ['iat', 'The token has no iat claim'],
    ['jti', 'The token has no jti claim'],
    ['sub', 'The token has no sub claim'],
    ['iss', 'The token has no iss claim'],
  ])('rejects a token without %s', async (claim, message) => {
    await expectAuthenticationError(authenticator.authenticate(bearer(tokenWith(appA, {}, [claim]))), {
      message,
    });
  });

  it('rejects a token without kid', async () => {
    const token = signEs256({ alg: 'ES256', typ: 'JWT' }, validClaims(appA), appA.privateKeyPem);

    await expectAuthenticationError(authenticator.authenticate(bearer(token)), {
      message: 'The token header has no valid kid',
    });
  });

  it('rejects a wrong audience, and an audience list', async () => {
    await expectAuthenticationError(
      authenticator.authenticate(bearer(tokenWith(appA, { aud: 'api.other.example' }))),
      {
        message: 'The token audience is not accepted',
      },
    );
    await expectAuthenticationError(
      authenticator.authenticate(bearer(tokenWith(appA, { aud: [AUDIENCE, 'api.other.example'] }))),
      { message: 'The token audience is not accepted' },
    );
  });

  it("rejects a token claiming app B signed with app A's key", async () => {
    const token = signEs256(
      validHeader(appA),
      { ...validClaims(appA), iss: appB.app.app_id },
      appA.privateKeyPem,
    );

    await expectAuthenticationError(authenticator.authenticate(bearer(token)), {
      message: 'The token signing key does not belong to the issuer',
    });
  });

  it("rejects a token naming app B's kid but signed with app A's key", async () => {
    const token = signEs256(validHeader(appB), { ...validClaims(appB) }, appA.privateKeyPem);

    await expectAuthenticationError(authenticator.authenticate(bearer(token)), {
      message: 'The token signature is not valid',
    });
  });

  it('rejects an unknown kid', async () => {
    const token = signEs256(
      { ...validHeader(appA), kid: 'f'.repeat(32) },
      validClaims(appA),
      appA.privateKeyPem,
    );

    await expectAuthenticationError(authenticator.authenticate(bearer(token)), {
      message: 'The token is signed with an unknown key',
    });
  });

  it('rejects a kid that names a service-token credential', async () => {
    const st = await createServiceTokenFixture(store);
    const token = signEs256(
      { ...validHeader(appA), kid: st.credentialId },
      { ...validClaims(appA), iss: st.app.app_id },
      appA.privateKeyPem,
    );

    await expectAuthenticationError(authenticator.authenticate(bearer(token)), {
      message: 'The token is signed with an unknown key',
    });
  });

  it('rejects a token whose credential is revoked', async () => {
    const fixture = await createJwtFixture(store);
    await revokeCredential(store, fixture.credentialId);

    await expectAuthenticationError(authenticator.authenticate(bearer(tokenWith(fixture, {}))), {
      message: 'The credential is revoked',
    });
  });

  it('rejects a token whose credential has expired', async () => {
    // Prepare: the credential expires in a day; the service's clock is two days ahead.
    const fixture = await createJwtFixture(store, { expiresAt: new Date(Date.now() + 86_400_000) });
    const later = new Date(Date.now() + 2 * 86_400_000);
    const future = createAuthenticator({ config: TEST_CONFIG, credentials: store, now: () => later });
    const token = signEs256(validHeader(fixture), validClaims(fixture, later), fixture.privateKeyPem);

    // Act + Assess
    await expectAuthenticationError(future.authenticate(bearer(token)), {
      message: 'The credential has expired',
    });
    // Half a day ahead, before the credential's expiry, a token of the same credential is fine.
    const halfDay = new Date(Date.now() + 43_200_000);
    const earlier = createAuthenticator({ config: TEST_CONFIG, credentials: store, now: () => halfDay });
    const fresh = signEs256(validHeader(fixture), validClaims(fixture, halfDay), fixture.privateKeyPem);
    await expect(earlier.authenticate(bearer(fresh))).resolves.toMatchObject({
      credentialId: fixture.credentialId,
    });
  });

  it('rejects a tampered payload', async () => {
    const [header, , signature] = tokenWith(appA, {}).split('.');
    const forged = Buffer.from(JSON.stringify({ ...validClaims(appA), sub: 'admin' })).toString('base64url');

    await expectAuthenticationError(authenticator.authenticate(bearer(`${header}.${forged}.${signature}`)), {
      message: 'The token signature is not valid',
    });
  });

  it('rejects a tampered signature', async () => {
    const token = tokenWith(appA, {});
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${token.slice(0, -2)}${last}${token.at(-1)}`;

    await expectAuthenticationError(authenticator.authenticate(bearer(tampered)), {
      message: 'The token signature is not valid',
    });
    await expectAuthenticationError(authenticator.authenticate(bearer(`${token.slice(0, -4)}`)), {
      message: 'The token signature is not valid',
    });
  });
});

describe('JWT authentication: credential cache and storage', () => {
  it('notices a revocation once the 30 s cache has expired', async () => {
    // Prepare
    const fixture = await createJwtFixture(store);
    let clock = new Date();
    const cached = createAuthenticator({ config: TEST_CONFIG, credentials: store, now: () => clock });
    const token = tokenWith(fixture, {});
    await cached.authenticate(bearer(token));

    // Act
    await revokeCredential(store, fixture.credentialId);

    // Assess: still cached within the TTL, refused after it.
    await expect(cached.authenticate(bearer(token))).resolves.toMatchObject({
      credentialId: fixture.credentialId,
    });
    clock = new Date(clock.getTime() + 31_000);
    await expectAuthenticationError(cached.authenticate(bearer(token)), {
      message: 'The credential is revoked',
    });
  });

  it('reports an unreadable credential store as StorageUnavailableError, not a 401', async () => {
    const broken = new CredentialStore({ client: createDocumentClient(), tableName: 'no-such-table' });
    const failing = createAuthenticator({ config: TEST_CONFIG, credentials: broken });

    const error = await failing.authenticate(bearer(tokenWith(appA, {}))).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(error).toMatchObject({ status: 503 });
  });
});
