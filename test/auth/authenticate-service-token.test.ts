import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../lib/auth/authenticate';
import { revokeCredential } from '../../lib/auth/credentials';
import {
  generateServiceToken,
  hashServiceTokenSecret,
  parseServiceToken,
} from '../../lib/auth/service-token';
import {
  createJwtFixture,
  createServiceTokenFixture,
  createTestStore,
  expectAuthenticationError,
  TEST_CONFIG,
} from './fixtures';

const store = createTestStore();
const authenticator = createAuthenticator({ config: TEST_CONFIG, credentials: store });
let fixture: { app: { app_id: string }; credentialId: string; token: string };

beforeAll(async () => {
  fixture = await createServiceTokenFixture(store);
});

describe('service token format', () => {
  it('generates st_<id>_<43 base64url chars> and stores the SHA-256 of the secret', () => {
    const id = 'a'.repeat(32);

    const { token, secretHash } = generateServiceToken(id);

    expect(token).toMatch(/^st_a{32}_[A-Za-z0-9_-]{43}$/);
    expect(secretHash).toBe(hashServiceTokenSecret(token.slice(3 + 32 + 1)));
    expect(secretHash).not.toContain(token.slice(36));
  });

  it('splits on the first underscore after the id, so secrets containing _ parse', () => {
    const id = '0123456789abcdef0123456789abcdef';
    const secret = `_${'x_'.repeat(21)}`;

    expect(parseServiceToken(`st_${id}_${secret}`)).toEqual({ credentialId: id, secret });
  });

  it.each([
    ['no prefix', `${'a'.repeat(32)}_${'x'.repeat(43)}`],
    ['uppercase id', `st_${'A'.repeat(32)}_${'x'.repeat(43)}`],
    ['short id', `st_${'a'.repeat(31)}_${'x'.repeat(43)}`],
    ['short secret', `st_${'a'.repeat(32)}_${'x'.repeat(42)}`],
    ['long secret', `st_${'a'.repeat(32)}_${'x'.repeat(44)}`],
    ['padding', `st_${'a'.repeat(32)}_${'x'.repeat(42)}=`],
    ['no separator', `st_${'a'.repeat(32)}${'x'.repeat(43)}`],
  ])('refuses a token with %s', (_case, token) => {
    expect(parseServiceToken(token)).toBeUndefined();
  });
});

describe('service token authentication', () => {
  it('accepts a valid token and returns the app as principal and subject', async () => {
    const principal = await authenticator.authenticate(`Bearer ${fixture.token}`);

    expect(principal).toEqual({
      appId: fixture.app.app_id,
      credentialId: fixture.credentialId,
      tokenKind: 'ST',
      subject: fixture.app.app_id,
    });
  });

  it('rejects a wrong secret and an unknown credential with the same message', async () => {
    const wrongSecret = `st_${fixture.credentialId}_${randomBytes(32).toString('base64url')}`;
    const unknownId = `st_${'0'.repeat(32)}_${fixture.token.slice(36)}`;

    await expectAuthenticationError(authenticator.authenticate(`Bearer ${wrongSecret}`), {
      message: 'The service token is not valid',
    });
    await expectAuthenticationError(authenticator.authenticate(`Bearer ${unknownId}`), {
      message: 'The service token is not valid',
    });
  });

  it('rejects a token naming a JWT credential the same way', async () => {
    const jwt = await createJwtFixture(store);

    await expectAuthenticationError(
      authenticator.authenticate(`Bearer st_${jwt.credentialId}_${randomBytes(32).toString('base64url')}`),
      { message: 'The service token is not valid' },
    );
  });

  it.each([
    ['missing secret', () => `st_${fixture.credentialId}`],
    ['truncated secret', () => fixture.token.slice(0, -1)],
    ['extra character', () => `${fixture.token}A`],
    ['uppercase id', () => `st_${fixture.credentialId.toUpperCase()}_${fixture.token.slice(36)}`],
  ])('rejects a malformed token (%s)', async (_case, token) => {
    await expectAuthenticationError(authenticator.authenticate(`Bearer ${token()}`), {
      message: 'The service token is malformed: expected st_<credential id>_<secret>',
    });
  });

  it('rejects a token of a revoked credential', async () => {
    const revoked = await createServiceTokenFixture(store);
    await revokeCredential(store, revoked.credentialId);

    await expectAuthenticationError(authenticator.authenticate(`Bearer ${revoked.token}`), {
      message: 'The credential is revoked',
    });
  });

  it('rejects a token whose credential has expired', async () => {
    const expiring = await createServiceTokenFixture(store, { expiresAt: new Date(Date.now() + 3600_000) });
    const later = createAuthenticator({
      config: TEST_CONFIG,
      credentials: store,
      now: () => new Date(Date.now() + 7200_000),
    });

    await expect(authenticator.authenticate(`Bearer ${expiring.token}`)).resolves.toMatchObject({
      tokenKind: 'ST',
    });
    await expectAuthenticationError(later.authenticate(`Bearer ${expiring.token}`), {
      message: 'The credential has expired',
    });
  });
});
