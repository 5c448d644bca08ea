/**
 * Apps and credentials: the records behind every bearer token, their id formats, and the view of a
 * credential that may be shown to an operator (never a private key or a service-token hash).
 */

/** Credential types: an ES256 key pair whose public half we keep, or an opaque service token (api-notes B9). */
export const CREDENTIAL_TYPES = ['JWT-EC-ES256', 'ST'] as const;

/** One of {@link CREDENTIAL_TYPES}. */
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** App ids are 32 uppercase hex digits, like the prefix of engine ids. */
export const APP_ID_PATTERN = /^[0-9A-F]{32}$/;

/** Credential ids (the JWT `kid`) are 32 lowercase hex digits, random, never reused. */
export const CREDENTIAL_ID_PATTERN = /^[0-9a-f]{32}$/;

/** Whether `value` has the app id format. */
export function isAppId(value: unknown): value is string {
  return typeof value === 'string' && APP_ID_PATTERN.test(value);
}

/** Whether `value` has the credential id format. */
export function isCredentialId(value: unknown): value is string {
  return typeof value === 'string' && CREDENTIAL_ID_PATTERN.test(value);
}

/** A client application; usage is metered per app. */
export interface App {
  /** 32 uppercase hex digits. */
  readonly app_id: string;
  /** Operator-chosen display name. */
  readonly name: string;
  /** Creation time, Unix seconds. */
  readonly created_at: number;
}

/**
 * Public half of an ES256 key, as a JWK. `alg` and `kid` are always set: aws-jwt-verify then
 * refuses any token whose header names another algorithm for this key (HS256, none).
 */
export interface Es256PublicJwk {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  /** base64url x coordinate. */
  readonly x: string;
  /** base64url y coordinate. */
  readonly y: string;
  readonly alg: 'ES256';
  readonly use: 'sig';
  /** The credential id. */
  readonly kid: string;
}

/** Fields every credential has. */
interface CredentialFields {
  /** The app the credential authenticates as. */
  readonly app_id: string;
  /** 32 lowercase hex digits; the JWT `kid`, and the middle part of a service token. */
  readonly id: string;
  /** Operator's note; empty when none was given. */
  readonly description: string;
  /** Creation time, Unix seconds. */
  readonly created_at: number;
  /** Unix seconds after which the credential is refused; null = never expires. */
  readonly expires_at: number | null;
  /** Revocation time, Unix seconds; absent while the credential is active. */
  readonly revoked_at?: number;
}

/** A credential whose holder signs JWTs with the private key matching {@link JwtCredential.public_jwk}. */
export interface JwtCredential extends CredentialFields {
  readonly type: 'JWT-EC-ES256';
  readonly public_jwk: Es256PublicJwk;
}

/** A credential whose holder presents `st_<id>_<secret>`; only the secret's SHA-256 is kept. */
export interface ServiceTokenCredential extends CredentialFields {
  readonly type: 'ST';
  /** base64url SHA-256 of the secret part of the token (43 characters). */
  readonly secret_hash: string;
}

/** A stored credential. */
export type Credential = JwtCredential | ServiceTokenCredential;

/**
 * The vendor's credential object as shown to an operator. `secret` is the public key (SPKI PEM) of
 * a JWT credential; ST credentials have none. Never carries a private key or a secret hash.
 */
export interface CredentialView {
  readonly app_id: string;
  readonly id: string;
  readonly description: string;
  /** Unix seconds. */
  readonly created_at: number;
  /** Unix seconds, or null for no expiry. */
  readonly expires_at: number | null;
  readonly type: CredentialType;
  /** Public key PEM (JWT credentials only). */
  readonly secret?: string;
  /** Unix seconds (revoked credentials only). */
  readonly revoked_at?: number;
}

/** Whether a credential may be used at a moment. */
export type CredentialState = 'active' | 'revoked' | 'expired';

/**
 * The state of a credential at `nowSeconds`. Revocation wins over expiry. No clock skew applies:
 * expiry is the operator's decision, not a clock reading of the client.
 * @param nowSeconds - Unix seconds
 */
export function credentialState(credential: Credential, nowSeconds: number): CredentialState {
  if (credential.revoked_at !== undefined) return 'revoked';
  if (credential.expires_at !== null && nowSeconds >= credential.expires_at) return 'expired';
  return 'active';
}

/** Converts a time to whole Unix seconds (rounded down). */
export function toUnixSeconds(time: Date): number {
  return Math.floor(time.getTime() / 1000);
}
