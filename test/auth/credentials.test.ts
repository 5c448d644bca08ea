import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../lib/auth/authenticate';
import {
  AppAlreadyExistsError,
  createApp,
  createJwtCredential,
  createServiceTokenCredential,
  listCredentials,
  mintJwt,
  revokeCredential,
  UnknownAppError,
  UnknownCredentialError,
} from '../../lib/auth/credentials';
import { ValidationError } from '../../lib/errors';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { keys } from '../../lib/storage/table-definition';
import { AUDIENCE, createTestStore, TEST_CONFIG, tableName } from './fixtures';

const store = createTestStore();
const documentClient = createDocumentClient();

/** The raw credential item, read with GetItem (product code never scans). */
async function rawCredentialItem(credentialId: string): Promise<Record<string, unknown>> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: keys.credential(credentialId) }),
  );
  if (result.Item === undefined) throw new Error(`no item for ${credentialId}`);
  return result.Item;
}

describe('createApp', () => {
  it('creates an app with a 32-uppercase-hex id and refuses the same id twice', async () => {
    // Act
    const app = await createApp(store, { name: '  Acme  ', now: new Date('2025-01-02T03:04:05Z') });

    // Assess
    expect(app).toEqual({
      app_id: expect.stringMatching(/^[0-9A-F]{32}$/),
      name: 'Acme',
      created_at: 1735787045,
    });
    expect(await store.getApp(app.app_id)).toEqual(app);
    await expect(createApp(store, { name: 'Other', appId: app.app_id })).rejects.toBeInstanceOf(
      AppAlreadyExistsError,
    );
    expect((await store.getApp(app.app_id))?.name).toBe('Acme');
  });

  it('refuses an empty name and a malformed id', async () => {
    await expect(createApp(store, { name: '  ' })).rejects.toBeInstanceOf(ValidationError);
    await expect(createApp(store, { name: 'x', appId: 'abc' })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('createJwtCredential', () => {
  it('returns the generated private key once and stores only the public key', async () => {
    // Prepare
    const app = await createApp(store, { name: 'jwt' });

    // Act
    const { credential, privateKeyPem } = await createJwtCredential(store, {
      appId: app.app_id,
      description: 'ci',
    });

    // Assess
    expect(credential).toMatchObject({
      app_id: app.app_id,
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      description: 'ci',
      type: 'JWT-EC-ES256',
      expires_at: null,
      secret: expect.stringContaining('-----BEGIN PUBLIC KEY-----'),
    });
    expect(credential).not.toHaveProperty('secret_private');
    expect(privateKeyPem).toContain('-----BEGIN PRIVATE KEY-----');
    const item = await rawCredentialItem(credential.id);
    const serialized = JSON.stringify(item);
    expect(serialized).not.toContain('PRIVATE');
    // The private scalar `d` of the key must appear nowhere in the item.
    const privateJwk = createPrivateKey(privateKeyPem ?? '').export({ format: 'jwk' });
    expect(typeof privateJwk.d).toBe('string');
    expect(serialized).not.toContain(String(privateJwk.d));
    expect(item.public_jwk).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: privateJwk.x,
      y: privateJwk.y,
      alg: 'ES256',
      use: 'sig',
      kid: credential.id,
    });
  });

  it("accepts the client's own public key and then returns no private key", async () => {
    const app = await createApp(store, { name: 'byok' });
    const keyPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicKeyPem = String(keyPair.publicKey.export({ type: 'spki', format: 'pem' }));

    const created = await createJwtCredential(store, { appId: app.app_id, publicKeyPem });

    expect(created.privateKeyPem).toBeUndefined();
    expect(created.credential.secret).toBe(publicKeyPem);
    const token = mintJwt({
      appId: app.app_id,
      credentialId: created.credential.id,
      privateKeyPem: String(keyPair.privateKey.export({ type: 'pkcs8', format: 'pem' })),
      audience: AUDIENCE,
    });
    const principal = await createAuthenticator({ config: TEST_CONFIG, credentials: store }).authenticate(
      `Bearer ${token}`,
    );
    expect(principal.credentialId).toBe(created.credential.id);
  });

  it('refuses keys that are not P-256 public keys', async () => {
    const app = await createApp(store, { name: 'bad keys' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });

    for (const publicKeyPem of [
      String(rsa.publicKey.export({ type: 'spki', format: 'pem' })),
      String(p384.publicKey.export({ type: 'spki', format: 'pem' })),
      String(p256.privateKey.export({ type: 'pkcs8', format: 'pem' })),
      'not a pem',
    ]) {
      await expect(createJwtCredential(store, { appId: app.app_id, publicKeyPem })).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
    expect(await store.listCredentials(app.app_id)).toEqual([]);
  });

  it('refuses an unknown app without writing anything', async () => {
    const appId = 'F'.repeat(32);

    await expect(createJwtCredential(store, { appId })).rejects.toBeInstanceOf(UnknownAppError);
    await expect(createServiceTokenCredential(store, { appId })).rejects.toThrow(`No app with id ${appId}`);
    expect(await store.listCredentials(appId)).toEqual([]);
  });

  it('stores the expiry as Unix seconds and refuses one in the past', async () => {
    const app = await createApp(store, { name: 'expiring' });
    const now = new Date('2030-05-01T00:00:00.900Z');

    const { credential } = await createJwtCredential(store, {
      appId: app.app_id,
      now,
      expiresAt: new Date('2030-06-01T00:00:00.500Z'),
    });

    expect(credential.created_at).toBe(1903824000);
    expect(credential.expires_at).toBe(1906502400);
    await expect(
      createJwtCredential(store, { appId: app.app_id, now, expiresAt: new Date('2030-04-01T00:00:00Z') }),
    ).rejects.toThrow('The expiry time must be in the future');
  });
});

describe('createServiceTokenCredential', () => {
  it('returns the token once and stores only the SHA-256 of its secret', async () => {
    const app = await createApp(store, { name: 'st' });

    const { credential, token } = await createServiceTokenCredential(store, { appId: app.app_id });

    expect(credential).toMatchObject({ app_id: app.app_id, type: 'ST' });
    expect(credential).not.toHaveProperty('secret');
    expect(token.startsWith(`st_${credential.id}_`)).toBe(true);
    const secret = token.slice(`st_${credential.id}_`.length);
    const item = await rawCredentialItem(credential.id);
    expect(JSON.stringify(item)).not.toContain(secret);
    expect(item.secret_hash).toBe(createHash('sha256').update(secret).digest('base64url'));
  });
});

describe('listCredentials and revokeCredential', () => {
  it("lists an app's credentials oldest first through the GSI, across pages, and no other app's", async () => {
    // Prepare
    const app = await createApp(store, { name: 'many' });
    const other = await createApp(store, { name: 'other' });
    await createServiceTokenCredential(store, { appId: other.app_id });
    const ids: string[] = [];
    for (let day = 1; day <= 5; day += 1) {
      const now = new Date(`2031-01-0${day}T00:00:00Z`);
      const created =
        day % 2 === 0
          ? (await createServiceTokenCredential(store, { appId: app.app_id, now })).credential
          : (await createJwtCredential(store, { appId: app.app_id, now })).credential;
      ids.push(created.id);
    }

    // Act
    const listed = await listCredentials(store, app.app_id);
    const paged = await store.listCredentials(app.app_id, { pageSize: 2 });

    // Assess
    expect(listed.map((credential) => credential.id)).toEqual(ids);
    expect(paged.map((credential) => credential.id)).toEqual(ids);
    expect(JSON.stringify(listed)).not.toContain('secret_hash');
    expect(listed.filter((credential) => credential.type === 'JWT-EC-ES256').every((c) => c.secret)).toBe(
      true,
    );
  });

  it('refuses to list an unknown app', async () => {
    await expect(listCredentials(store, 'E'.repeat(32))).rejects.toBeInstanceOf(UnknownAppError);
  });

  it('revokes once, keeps the first revocation time, and refuses unknown ids', async () => {
    const app = await createApp(store, { name: 'revoke' });
    const { credential } = await createServiceTokenCredential(store, { appId: app.app_id });

    const first = await revokeCredential(store, credential.id, new Date('2031-02-03T04:05:06Z'));
    const second = await revokeCredential(store, credential.id, new Date('2031-03-01T00:00:00Z'));

    expect(first.revoked_at).toBe(1927857906);
    expect(second.revoked_at).toBe(1927857906);
    expect((await store.getCredential(credential.id))?.revoked_at).toBe(1927857906);
    expect((await listCredentials(store, app.app_id))[0]?.revoked_at).toBe(1927857906);
    await expect(revokeCredential(store, 'd'.repeat(32))).rejects.toBeInstanceOf(UnknownCredentialError);
    await expect(revokeCredential(store, 'not-an-id')).rejects.toBeInstanceOf(ValidationError);
  });
});
