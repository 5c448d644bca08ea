/**
 * Verifies ES256 JWTs signed by the holders of our credentials (api-notes B8), with aws-jwt-verify
 * and a key store backed by the credential table instead of a JWKS URL.
 */
import { JwtVerifier } from 'aws-jwt-verify';
import {
  JwtBaseError,
  JwtExpiredError,
  JwtInvalidAudienceError,
  JwtInvalidSignatureAlgorithmError,
  JwtInvalidSignatureError,
  JwtNotBeforeError,
  JwtParseError,
} from 'aws-jwt-verify/error';
import type { Jwks, JwksCache, JwkWithKid } from 'aws-jwt-verify/jwk';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import { AuthenticationError, ServiceError } from '../errors';
import { credentialState, isCredentialId } from './credential';
import type { CredentialReader } from './credential-cache';

/**
 * Placeholder JWKS URI: the library requires one when the issuer is not a URL; the custom cache
 * below answers every lookup, so nothing is ever fetched from it.
 */
export const CREDENTIAL_JWKS_URI = 'store://credentials';

/** The only accepted signature algorithm. */
export const JWT_ALGORITHM = 'ES256';

/** Length of a base64url ES256 signature (64 bytes r‖s, unpadded). */
const ES256_SIGNATURE_LENGTH = 86;

/** Who a verified JWT speaks for. */
export interface VerifiedJwt {
  /** The app in `iss`, which owns the signing credential. */
  readonly appId: string;
  /** The `kid`. */
  readonly credentialId: string;
  /** The `sub` claim (the app id or a user id of the app). */
  readonly subject: string;
  /** The `jti` claim. */
  readonly tokenId: string;
  /** The `exp` claim, Unix seconds. */
  readonly expiresAt: number;
}

/** Verifies one JWT. */
export interface JwtTokenVerifier {
  /**
   * @throws AuthenticationError (401) naming the broken rule
   * @throws StorageUnavailableError (503) when the credential cannot be read
   */
  verify(token: string): Promise<VerifiedJwt>;
}

/** Settings and dependencies of {@link createJwtVerifier}. */
export interface JwtVerifierDeps {
  /** The only accepted `aud`. */
  readonly audience: string;
  /** Longest accepted `exp − iat`, in seconds. */
  readonly maxLifetimeSeconds: number;
  /** Tolerance on `exp`, `nbf` and `iat`, in seconds. */
  readonly clockSkewSeconds: number;
  /** Where credentials are read by `kid` (pass a {@link CredentialCache}). */
  readonly credentials: CredentialReader;
  /** Clock (default the system clock). */
  readonly now?: () => Date;
}

function invalid(message: string): AuthenticationError {
  return new AuthenticationError(message);
}

/**
 * The library's key store, answered from the credential table. The library looks the key up
 * before it checks the signature, so every rule about the credential itself is enforced here:
 * it exists, is a JWT credential, belongs to the app named in `iss`, and is neither revoked nor
 * expired. Without the `iss` check, app A's key could sign a token claiming to be app B.
 */
class CredentialJwksCache implements JwksCache {
  readonly #credentials: CredentialReader;
  readonly #now: () => Date;

  constructor(credentials: CredentialReader, now: () => Date) {
    this.#credentials = credentials;
    this.#now = now;
  }

  async getJwk(
    _jwksUri: string,
    decomposedJwt: { header: JwtHeader; payload: JwtPayload },
  ): Promise<JwkWithKid> {
    const { header, payload } = decomposedJwt;
    if (!isCredentialId(header.kid)) throw invalid('The token header has no valid kid');
    if (typeof payload.iss !== 'string' || payload.iss === '') throw invalid('The token has no iss claim');
    const credential = await this.#credentials.getCredential(header.kid);
    if (credential === undefined || credential.type !== 'JWT-EC-ES256') {
      throw invalid('The token is signed with an unknown key');
    }
    if (credential.app_id !== payload.iss) {
      throw invalid('The token signing key does not belong to the issuer');
    }
    const state = credentialState(credential, Math.floor(this.#now().getTime() / 1000));
    if (state === 'revoked') throw invalid('The credential is revoked');
    if (state === 'expired') throw invalid('The credential has expired');
    const { kty, crv, x, y, alg, use, kid } = credential.public_jwk;
    return { kty, crv, x, y, alg, use, kid };
  }

  getCachedJwk(): JwkWithKid {
    throw new Error('Synchronous JWT verification is not supported: keys live in the credential table');
  }

  addJwks(): void {
    throw new Error('Keys cannot be added: they live in the credential table');
  }

  async getJwks(): Promise<Jwks> {
    throw new Error('The credential table has no JWKS to download');
  }
}

/** Maps a library error to a 401 whose message names the broken rule. */
function toAuthenticationError(error: unknown): unknown {
  if (error instanceof ServiceError) return error;
  if (error instanceof JwtParseError) return invalid('The token is not a well-formed JWT');
  if (error instanceof JwtInvalidSignatureAlgorithmError) {
    return invalid(`The token must be signed with ${JWT_ALGORITHM}`);
  }
  if (error instanceof JwtInvalidSignatureError) return invalid('The token signature is not valid');
  if (error instanceof JwtExpiredError) return invalid('The token has expired');
  if (error instanceof JwtNotBeforeError) return invalid('The token is not valid yet (nbf)');
  if (error instanceof JwtInvalidAudienceError) return invalid('The token audience is not accepted');
  if (error instanceof JwtBaseError) return invalid('The token is not valid');
  // aws-jwt-verify writes an expired `exp` or a future `nbf` into its error message as an ISO date;
  // a claim beyond the range of a Date (|t| > 8.64e12 s, e.g. nbf 1e300) makes that formatting
  // throw a RangeError instead of the library's error, which would otherwise surface as a 500.
  if (error instanceof RangeError) return invalid('The token has a time claim out of range');
  // node:crypto refuses a signature that is not a valid r‖s encoding instead of returning false.
  if (error instanceof Error && Reflect.get(error, 'code') === 'ERR_CRYPTO_OPERATION_FAILED') {
    return invalid('The token signature is not valid');
  }
  return error;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * Creates a verifier enforcing api-notes B8: ES256 only; `kid` names an unrevoked, unexpired JWT
 * credential of the app in `iss`; `aud` equals the configured audience (a string, not a list);
 * `exp`, `iat`, `jti`, `sub` required; `nbf` honoured; `exp − iat` at most `maxLifetimeSeconds`;
 * `clockSkewSeconds` tolerated on the time claims.
 *
 * aws-jwt-verify checks `exp`/`nbf` against the system clock as well; the checks here use `now`,
 * so an injected clock can only make verification stricter, never more lenient.
 */
export function createJwtVerifier(deps: JwtVerifierDeps): JwtTokenVerifier {
  const now = deps.now ?? (() => new Date());
  const skew = deps.clockSkewSeconds;

  /**
   * The claim rules the library leaves out. Runs after the signature and the library's own
   * `exp`/`nbf`/`aud` checks, and returns the narrowed claims.
   */
  const checkClaims = (header: JwtHeader, payload: JwtPayload): VerifiedJwt => {
    // aws-jwt-verify accepts an `aud` list containing the audience; a token meant for several
    // services could then be replayed against us, so only the exact string is accepted.
    if (payload.aud !== deps.audience) throw invalid('The token audience is not accepted');
    const { iss, sub, jti, exp, iat, nbf } = payload;
    if (exp === undefined) throw invalid('The token has no exp claim');
    if (iat === undefined) throw invalid('The token has no iat claim');
    if (!isNonEmptyString(jti)) throw invalid('The token has no jti claim');
    if (!isNonEmptyString(sub)) throw invalid('The token has no sub claim');
    // The key store has required both already; this narrows the types.
    if (!isNonEmptyString(iss)) throw invalid('The token has no iss claim');
    if (!isCredentialId(header.kid)) throw invalid('The token header has no valid kid');
    const nowSeconds = now().getTime() / 1000;
    if (nowSeconds >= exp + skew) throw invalid('The token has expired');
    if (nbf !== undefined && nowSeconds < nbf - skew) throw invalid('The token is not valid yet (nbf)');
    if (iat > nowSeconds + skew) throw invalid('The token is issued in the future (iat)');
    const lifetime = exp - iat;
    if (lifetime <= 0) throw invalid('The token expires before it is issued (exp ≤ iat)');
    if (lifetime > deps.maxLifetimeSeconds) {
      throw invalid(`The token lifetime (exp − iat) exceeds ${deps.maxLifetimeSeconds} seconds`);
    }
    return { appId: iss, credentialId: header.kid, subject: sub, tokenId: jti, expiresAt: exp };
  };

  const verifier = JwtVerifier.create(
    { issuer: null, audience: deps.audience, jwksUri: CREDENTIAL_JWKS_URI, graceSeconds: skew },
    { jwksCache: new CredentialJwksCache(deps.credentials, now) },
  );

  return {
    async verify(token: string): Promise<VerifiedJwt> {
      const parts = token.split('.');
      if (parts.length === 3 && parts[2]?.length !== ES256_SIGNATURE_LENGTH) {
        throw invalid('The token signature is not valid');
      }
      let verified: VerifiedJwt | undefined;
      try {
        // A per-call check, so the narrowed claims come back without shared mutable state.
        await verifier.verify(token, {
          customJwtCheck: ({ header, payload }) => {
            verified = checkClaims(header, payload);
          },
        });
      } catch (error) {
        throw toAuthenticationError(error);
      }
      if (verified === undefined) throw invalid('The token is not valid');
      return verified;
    },
  };
}
