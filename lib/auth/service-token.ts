/**
 * Service tokens (api-notes B9): opaque secrets `st_<credential_id>_<secret>` bound to one ST
 * credential. Only the SHA-256 of the secret is stored, and it is compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AuthenticationError } from '../errors';
import { credentialState, isCredentialId } from './credential';
import type { CredentialReader } from './credential-cache';

/** Every service token starts with this prefix; a JWT never does (its header starts with `eyJ`). */
export const SERVICE_TOKEN_PREFIX = 'st_';

/** Random bytes in a secret. */
const SECRET_BYTES = 32;

/** base64url of 32 bytes, unpadded: 43 characters, which may include `_` and `-`. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new service token and what is stored for it. */
export interface GeneratedServiceToken {
  /** `st_<credential_id>_<secret>`; shown once, never stored. */
  readonly token: string;
  /** base64url SHA-256 of the secret, stored on the credential. */
  readonly secretHash: string;
}

/** The two parts of a well-formed service token. */
export interface ParsedServiceToken {
  readonly credentialId: string;
  readonly secret: string;
}

/** Who a verified service token speaks for. */
export interface VerifiedServiceToken {
  readonly appId: string;
  readonly credentialId: string;
}

/** Verifies one service token. */
export interface ServiceTokenVerifier {
  /**
   * @throws AuthenticationError (401): malformed; `The service token is not valid` for both an
   *   unknown credential and a wrong secret; revoked or expired credential (only told to a holder
   *   of the right secret)
   * @throws StorageUnavailableError (503) when the credential cannot be read
   */
  verify(token: string): Promise<VerifiedServiceToken>;
}

/**
 * Hashes a secret for storage and comparison. The secret's text is hashed, not its decoded bytes,
 * so no second spelling of the same bytes is accepted.
 * @returns base64url SHA-256 (43 characters)
 */
export function hashServiceTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Creates a token for a credential: 32 random bytes, base64url. */
export function generateServiceToken(credentialId: string): GeneratedServiceToken {
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  return {
    token: `${SERVICE_TOKEN_PREFIX}${credentialId}_${secret}`,
    secretHash: hashServiceTokenSecret(secret),
  };
}

/**
 * Splits a token into credential id and secret. The id has a fixed length (32 lowercase hex), so
 * the separator is the first `_` after it even though the secret may contain `_` itself.
 * @returns undefined when the token does not have the service-token shape
 */
export function parseServiceToken(token: string): ParsedServiceToken | undefined {
  if (!token.startsWith(SERVICE_TOKEN_PREFIX)) return undefined;
  const rest = token.slice(SERVICE_TOKEN_PREFIX.length);
  const separator = rest.indexOf('_');
  if (separator < 0) return undefined;
  const credentialId = rest.slice(0, separator);
  const secret = rest.slice(separator + 1);
  if (!isCredentialId(credentialId) || !SECRET_PATTERN.test(secret)) return undefined;
  return { credentialId, secret };
}

/**
 * Compared against when the credential is unknown, so an unknown id costs the same work as a
 * wrong secret.
 */
const UNKNOWN_CREDENTIAL_HASH = createHash('sha256').update('no such credential').digest();

/**
 * Creates a verifier of service tokens.
 * @param deps.credentials - where credentials are read (pass a {@link CredentialCache})
 * @param deps.now - clock for credential expiry (default the system clock)
 */
export function createServiceTokenVerifier(deps: {
  credentials: CredentialReader;
  now?: () => Date;
}): ServiceTokenVerifier {
  const now = deps.now ?? (() => new Date());
  return {
    async verify(token: string): Promise<VerifiedServiceToken> {
      const parsed = parseServiceToken(token);
      if (parsed === undefined) {
        throw new AuthenticationError('The service token is malformed: expected st_<credential id>_<secret>');
      }
      const credential = await deps.credentials.getCredential(parsed.credentialId);
      const expected =
        credential?.type === 'ST'
          ? Buffer.from(credential.secret_hash, 'base64url')
          : UNKNOWN_CREDENTIAL_HASH;
      const actual = createHash('sha256').update(parsed.secret, 'utf8').digest();
      const secretMatches = expected.length === actual.length && timingSafeEqual(actual, expected);
      if (credential?.type !== 'ST' || !secretMatches) {
        throw new AuthenticationError('The service token is not valid');
      }
      const state = credentialState(credential, Math.floor(now().getTime() / 1000));
      if (state === 'revoked') throw new AuthenticationError('The credential is revoked');
      if (state === 'expired') throw new AuthenticationError('The credential has expired');
      return { appId: credential.app_id, credentialId: credential.id };
    },
  };
}
