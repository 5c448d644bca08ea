/**
 * Factories shared by the auth and admin tests: a store on this file's table, apps with
 * credentials, and hand-made tokens for the cases `mintJwt` refuses to produce.
 */
import { createHmac, randomUUID, sign } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../../lib/auth/credential';
import { createApp, createJwtCredential, createServiceTokenCredential } from '../../lib/auth/credentials';
import { AuthenticationError, type ErrorCodeName } from '../../lib/errors';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';

/** The audience the per-file setup puts in `JWT_AUDIENCE`. */
export const AUDIENCE = 'api.test.local';

/** The service defaults of api-notes B8. */
export const TEST_CONFIG = {
  jwtAudience: AUDIENCE,
  jwtMaxLifetimeSeconds: 86_400,
  jwtClockSkewSeconds: 60,
} as const;

/** This test file's table (set by `test/support/per-file-table.ts`). */
export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (name === undefined) throw new Error('TABLE_NAME is not set: run the tests through vitest');
  return name;
}

/** A store on this test file's table in DynamoDB Local. */
export function createTestStore(): CredentialStore {
  return new CredentialStore({ client: createDocumentClient(), tableName: tableName() });
}

/** An app with one generated JWT credential. */
export interface JwtFixture {
  readonly app: App;
  readonly credentialId: string;
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
}

/** Creates an app and a JWT credential with a generated key pair. */
export async function createJwtFixture(
  store: CredentialStore,
  options: { expiresAt?: Date; now?: Date } = {},
): Promise<JwtFixture> {
  const app = await createApp(store, { name: `app-${randomUUID()}` });
  const created = await createJwtCredential(store, { appId: app.app_id, ...options });
  if (created.privateKeyPem === undefined || created.credential.secret === undefined) {
    throw new Error('expected a generated key pair');
  }
  return {
    app,
    credentialId: created.credential.id,
    privateKeyPem: created.privateKeyPem,
    publicKeyPem: created.credential.secret,
  };
}

/** Creates an app and an ST credential. */
export async function createServiceTokenFixture(
  store: CredentialStore,
  options: { expiresAt?: Date; now?: Date } = {},
): Promise<{ app: App; credentialId: string; token: string }> {
  const app = await createApp(store, { name: `app-${randomUUID()}` });
  const created = await createServiceTokenCredential(store, { appId: app.app_id, ...options });
  return { app, credentialId: created.credential.id, token: created.token };
}

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Signs any header and payload with ES256, the way a (possibly misbehaving) client would. */
export function signEs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  privateKeyPem: string,
) {
  const input = `${segment(header)}.${segment(payload)}`;
  const signature = sign('sha256', Buffer.from(input), { key: privateKeyPem, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** Signs with HMAC-SHA256 using `secret` as the key (the classic algorithm-confusion attack). */
export function signHs256(header: Record<string, unknown>, payload: Record<string, unknown>, secret: string) {
  const input = `${segment(header)}.${segment(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** Unix seconds of a date. */
export function unix(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** Standard claims of a valid token for a fixture, issued at `issuedAt`, valid for an hour. */
export function validClaims(fixture: JwtFixture, issuedAt: Date = new Date()): Record<string, unknown> {
  const iat = unix(issuedAt);
  return {
    iss: fixture.app.app_id,
    sub: 'user-42',
    aud: AUDIENCE,
    iat,
    exp: iat + 3600,
    jti: randomUUID(),
  };
}

/** The header `mintJwt` writes for a fixture. */
export function validHeader(fixture: JwtFixture): Record<string, unknown> {
  return { alg: 'ES256', typ: 'JWT', kid: fixture.credentialId };
}

/** Asserts a rejection with an {@link AuthenticationError} of the given code and message. */
export async function expectAuthenticationError(
  promise: Promise<unknown>,
  expected: { code?: ErrorCodeName; message: string | RegExp },
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  if (!(error instanceof AuthenticationError)) return;
  expect(error.code).toBe(expected.code ?? 'invalidToken');
  if (typeof expected.message === 'string') expect(error.message).toBe(expected.message);
  else expect(error.message).toMatch(expected.message);
}
