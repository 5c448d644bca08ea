/**
 * Turns an `Authorization` header into the calling app: `Bearer <JWT>` or `Bearer <service token>`.
 */
import type { ServiceConfig } from '../config';
import { AuthenticationError } from '../errors';
import { CredentialCache, type CredentialReader } from './credential-cache';
import { createJwtVerifier } from './jwt-verifier';
import { createServiceTokenVerifier, SERVICE_TOKEN_PREFIX } from './service-token';

/** The authenticated caller. */
export interface Principal {
  /** App the token belongs to (32 uppercase hex); usage is read and recorded for this app. */
  readonly appId: string;
  /** The credential that signed the JWT (`kid`) or that the service token belongs to. */
  readonly credentialId: string;
  readonly tokenKind: 'JWT' | 'ST';
  /** The JWT `sub` claim, or the app id for a service token. */
  readonly subject: string;
}

/** Authenticates requests. */
export interface Authenticator {
  /**
   * @param authorizationHeader - the raw header value, undefined when absent
   * @throws AuthenticationError with `{missing: true}` (401 `missing_token`) when there is no header;
   *   AuthenticationError (401 `invalid_token`) naming the problem for anything else that is wrong
   *   (never echoing the token)
   * @throws StorageUnavailableError (503) when credentials cannot be read
   */
  authenticate(authorizationHeader: string | undefined): Promise<Principal>;
}

/** Dependencies of {@link createAuthenticator}. */
export interface AuthenticatorDeps {
  readonly config: Pick<ServiceConfig, 'jwtAudience' | 'jwtMaxLifetimeSeconds' | 'jwtClockSkewSeconds'>;
  /** The credential store (a `CredentialStore`); reads are cached for a short time. */
  readonly credentials: CredentialReader;
  /** Clock for token and credential expiry and the cache (default the system clock). */
  readonly now?: () => Date;
}

/** Longest token accepted, in characters; guards the parsers against oversized input. */
const MAX_TOKEN_LENGTH = 8192;

/** `Bearer <token>`, scheme case-insensitive (RFC 7235 §2.1). */
const BEARER = /^bearer +(\S+)$/i;

/** Three base64url segments; the library checks the rest. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Creates the authenticator. Build it once per container: it holds the credential cache (30 s),
 * so a revocation takes effect within 30 s.
 */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const now = deps.now ?? (() => new Date());
  const credentials = new CredentialCache({ source: deps.credentials, now });
  const jwt = createJwtVerifier({
    audience: deps.config.jwtAudience,
    maxLifetimeSeconds: deps.config.jwtMaxLifetimeSeconds,
    clockSkewSeconds: deps.config.jwtClockSkewSeconds,
    credentials,
    now,
  });
  const serviceToken = createServiceTokenVerifier({ credentials, now });

  return {
    async authenticate(authorizationHeader: string | undefined): Promise<Principal> {
      const header = authorizationHeader?.trim() ?? '';
      if (header === '') {
        throw new AuthenticationError(
          'The Authorization header is missing: send "Authorization: Bearer <token>"',
          {
            missing: true,
          },
        );
      }
      const token = BEARER.exec(header)?.[1];
      if (token === undefined) {
        throw new AuthenticationError('The Authorization header must have the form "Bearer <token>"');
      }
      if (token.length > MAX_TOKEN_LENGTH) throw new AuthenticationError('The token is too long');
      if (token.startsWith(SERVICE_TOKEN_PREFIX)) {
        const verified = await serviceToken.verify(token);
        return { ...verified, tokenKind: 'ST', subject: verified.appId };
      }
      if (JWT_SHAPE.test(token)) {
        const verified = await jwt.verify(token);
        return {
          appId: verified.appId,
          credentialId: verified.credentialId,
          tokenKind: 'JWT',
          subject: verified.subject,
        };
      }
      throw new AuthenticationError('The token is neither a JWT nor a service token');
    },
  };
}
