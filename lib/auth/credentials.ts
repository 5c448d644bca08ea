/**
 * Operator operations on apps and credentials (api-notes B10), used by the admin CLI and the local
 * stack's seeding. Private keys and service-token secrets are returned once and never stored.
 */
import { createPublicKey, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { ConflictError, ValidationError } from '../errors';
import type { CredentialStore } from '../storage/credential-store';
import {
  type App,
  type Credential,
  type CredentialView,
  type Es256PublicJwk,
  isAppId,
  isCredentialId,
  type JwtCredential,
  type ServiceTokenCredential,
  toUnixSeconds,
} from './credential';
import { generateServiceToken } from './service-token';

export { mintJwt } from './mint-jwt';

/** Longest app name, in characters. */
export const MAX_APP_NAME_LENGTH = 200;

/** Longest credential description, in characters. */
export const MAX_DESCRIPTION_LENGTH = 1000;

/** An app with the requested id exists already; nothing was written. */
export class AppAlreadyExistsError extends ConflictError {
  constructor(readonly appId: string) {
    super(`An app with id ${appId} already exists`, appId);
    this.name = 'AppAlreadyExistsError';
  }
}

/** The named app does not exist. */
export class UnknownAppError extends ValidationError {
  constructor(readonly appId: string) {
    super('invalidParameter', `No app with id ${appId}`, { details: { app_id: appId } });
  }
}

/** The named credential does not exist. */
export class UnknownCredentialError extends ValidationError {
  constructor(readonly credentialId: string) {
    super('invalidParameter', `No credential with id ${credentialId}`, {
      details: { credential_id: credentialId },
    });
  }
}

/** A new random app id: 32 uppercase hex digits. */
export function newAppId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

/** A new random credential id: 32 lowercase hex digits (128 bits, so never reused in practice). */
export function newCredentialId(): string {
  return randomBytes(16).toString('hex');
}

/** A fresh P-256 key pair as PEM (SPKI public, PKCS#8 private). */
export function generateEs256KeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/**
 * The operator's view of a credential: the vendor's credential object with the public key PEM as
 * `secret` for JWT credentials; never a private key or a secret hash.
 */
export function toCredentialView(credential: Credential): CredentialView {
  const view = {
    app_id: credential.app_id,
    id: credential.id,
    description: credential.description,
    created_at: credential.created_at,
    expires_at: credential.expires_at,
    type: credential.type,
    ...(credential.type === 'JWT-EC-ES256' ? { secret: publicKeyPemOf(credential.public_jwk) } : {}),
    ...(credential.revoked_at === undefined ? {} : { revoked_at: credential.revoked_at }),
  };
  return view;
}

/**
 * Creates an app.
 * @param input.name - display name, 1–200 characters after trimming
 * @param input.appId - a chosen id (32 uppercase hex); default a random one
 * @param input.now - creation time (default now)
 * @throws ValidationError `invalidParameter` for a bad name or id
 * @throws AppAlreadyExistsError when `appId` is taken (the existing app is unchanged)
 * @throws StorageUnavailableError when DynamoDB fails
 */
export async function createApp(
  store: CredentialStore,
  input: { name: string; appId?: string; now?: Date },
): Promise<App> {
  const name = input.name.trim();
  if (name === '' || name.length > MAX_APP_NAME_LENGTH) {
    throw new ValidationError(
      'invalidParameter',
      `The app name must be 1 to ${MAX_APP_NAME_LENGTH} characters`,
    );
  }
  const appId = input.appId ?? newAppId();
  assertAppId(appId);
  const app: App = { app_id: appId, name, created_at: toUnixSeconds(input.now ?? new Date()) };
  const result = await store.putApp(app);
  if (!result.ok) throw new AppAlreadyExistsError(appId);
  return app;
}

/** Options shared by both credential types. */
interface NewCredentialInput {
  /** The app the credential authenticates as. */
  readonly appId: string;
  /** Operator's note (at most 1000 characters; default empty). */
  readonly description?: string;
  /** When the credential stops working (stored as Unix seconds, rounded down); default never. */
  readonly expiresAt?: Date;
  /** Creation time (default now). */
  readonly now?: Date;
}

/**
 * Creates a `JWT-EC-ES256` credential. With `publicKeyPem` the client keeps its own private key;
 * without it a P-256 key pair is generated and the private key is returned here once (never stored).
 * @returns the credential view, and `privateKeyPem` when the key pair was generated
 * @throws ValidationError `invalidParameter` for a bad app id, description, expiry or public key
 * @throws UnknownAppError when the app does not exist
 * @throws StorageUnavailableError when DynamoDB fails
 */
export async function createJwtCredential(
  store: CredentialStore,
  input: NewCredentialInput & { publicKeyPem?: string },
): Promise<{ credential: CredentialView; privateKeyPem?: string }> {
  const fields = newCredentialFields(input);
  let publicKeyPem = input.publicKeyPem;
  let privateKeyPem: string | undefined;
  if (publicKeyPem === undefined) {
    ({ publicKeyPem, privateKeyPem } = generateEs256KeyPair());
  }
  const credential: JwtCredential = {
    ...fields,
    type: 'JWT-EC-ES256',
    public_jwk: publicJwkOf(publicKeyPem, fields.id),
  };
  await putCredential(store, credential);
  const view = toCredentialView(credential);
  return privateKeyPem === undefined ? { credential: view } : { credential: view, privateKeyPem };
}

/**
 * Creates an `ST` credential and its service token `st_<id>_<secret>`; only the secret's SHA-256
 * is stored, so the token is returned here once.
 * @throws ValidationError `invalidParameter` for a bad app id, description or expiry
 * @throws UnknownAppError when the app does not exist
 * @throws StorageUnavailableError when DynamoDB fails
 */
export async function createServiceTokenCredential(
  store: CredentialStore,
  input: NewCredentialInput,
): Promise<{ credential: CredentialView; token: string }> {
  const fields = newCredentialFields(input);
  const { token, secretHash } = generateServiceToken(fields.id);
  const credential: ServiceTokenCredential = { ...fields, type: 'ST', secret_hash: secretHash };
  await putCredential(store, credential);
  return { credential: toCredentialView(credential), token };
}

/**
 * Lists an app's credentials, oldest first, revoked ones included.
 * @throws ValidationError `invalidParameter` for a malformed app id
 * @throws UnknownAppError when the app does not exist
 * @throws StorageUnavailableError when DynamoDB fails
 */
export async function listCredentials(store: CredentialStore, appId: string): Promise<CredentialView[]> {
  assertAppId(appId);
  if ((await store.getApp(appId)) === undefined) throw new UnknownAppError(appId);
  const credentials = await store.listCredentials(appId);
  return credentials.map(toCredentialView);
}

/**
 * Revokes a credential; revoking it again keeps the first revocation time. Verifiers notice
 * within their cache time (30 s).
 * @param now - revocation time (default now)
 * @throws ValidationError `invalidParameter` for a malformed credential id
 * @throws UnknownCredentialError when there is no such credential
 * @throws StorageUnavailableError when DynamoDB fails
 */
export async function revokeCredential(
  store: CredentialStore,
  credentialId: string,
  now: Date = new Date(),
): Promise<CredentialView> {
  if (!isCredentialId(credentialId)) {
    throw new ValidationError('invalidParameter', 'A credential id must be 32 lowercase hex digits');
  }
  const result = await store.revokeCredential(credentialId, now);
  if (result.outcome === 'notFound') throw new UnknownCredentialError(credentialId);
  return toCredentialView(result.credential);
}

function assertAppId(appId: string): void {
  if (!isAppId(appId)) {
    throw new ValidationError('invalidParameter', 'An app id must be 32 uppercase hex digits');
  }
}

/** Fields of a new credential, checked; the id is fresh. */
type NewCredentialFields = Pick<Credential, 'app_id' | 'id' | 'description' | 'created_at' | 'expires_at'>;

function newCredentialFields(input: NewCredentialInput): NewCredentialFields {
  assertAppId(input.appId);
  const description = input.description ?? '';
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw new ValidationError(
      'invalidParameter',
      `The description must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
    );
  }
  const createdAt = toUnixSeconds(input.now ?? new Date());
  const expiresAt = input.expiresAt === undefined ? null : toUnixSeconds(input.expiresAt);
  if (expiresAt !== null && (Number.isNaN(expiresAt) || expiresAt <= createdAt)) {
    throw new ValidationError('invalidParameter', 'The expiry time must be in the future');
  }
  return {
    app_id: input.appId,
    id: newCredentialId(),
    description,
    created_at: createdAt,
    expires_at: expiresAt,
  };
}

async function putCredential(store: CredentialStore, credential: Credential): Promise<void> {
  const result = await store.putCredential(credential);
  if (result.ok) return;
  if (result.reason === 'unknownApp') throw new UnknownAppError(credential.app_id);
  // 128 random bits collided: refuse rather than overwrite another credential's key.
  throw new ConflictError(`A credential with id ${credential.id} already exists`, credential.id);
}

/**
 * Reads a client's public key.
 * @throws ValidationError `invalidParameter` unless it is a P-256 public key in PEM
 */
function publicJwkOf(publicKeyPem: string, credentialId: string): Es256PublicJwk {
  // createPublicKey would quietly derive the public half of a private key; an operator passing a
  // private key here has a key that must not leave the client, so say so instead.
  if (publicKeyPem.includes('PRIVATE KEY')) {
    throw new ValidationError(
      'invalidParameter',
      'Expected a public key, got a private key: pass the public key PEM',
    );
  }
  let key: KeyObject;
  try {
    key = createPublicKey(publicKeyPem);
  } catch {
    throw new ValidationError('invalidParameter', 'The public key is not a readable PEM public key');
  }
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new ValidationError('invalidParameter', 'The public key must be an EC P-256 key (ES256)');
  }
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, alg: 'ES256', use: 'sig', kid: credentialId };
}

function publicKeyPemOf(jwk: Es256PublicJwk): string {
  const pem = createPublicKey({
    key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
    format: 'jwk',
  }).export({
    type: 'spki',
    format: 'pem',
  });
  return typeof pem === 'string' ? pem : pem.toString('utf8');
}
