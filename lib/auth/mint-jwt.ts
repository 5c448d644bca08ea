/**
 * Client side of JWT authentication: signs an ES256 token with a credential's private key, as an
 * app would. Used by the operator CLI and the local stack; the service itself never holds a
 * private key.
 */
import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { ValidationError } from '../errors';
import { toUnixSeconds } from './credential';

/** Lifetime of a minted token when none is given, in seconds. */
export const DEFAULT_JWT_LIFETIME_SECONDS = 3600;

/** What {@link mintJwt} needs. */
export interface MintJwtInput {
  /** Becomes `iss`. */
  readonly appId: string;
  /** Becomes the header's `kid`. */
  readonly credentialId: string;
  /** The credential's private key (PKCS#8 or SEC1 PEM, P-256). */
  readonly privateKeyPem: string;
  /** Becomes `aud`: the service's configured audience. */
  readonly audience: string;
  /** Becomes `sub` (default the app id). */
  readonly subject?: string;
  /** `exp − iat` in seconds, a positive integer (default 3600). */
  readonly lifetimeSeconds?: number;
  /** Becomes `iat` (default now). */
  readonly now?: Date;
}

/**
 * Mints a JWT: header `{alg: 'ES256', typ: 'JWT', kid}`, claims `iss, sub, aud, iat, exp, jti`
 * (`jti` a random UUID; times in Unix seconds).
 * @throws ValidationError `invalidParameter` when the key is not a P-256 private key or the lifetime is not a positive integer
 */
export function mintJwt(input: MintJwtInput): string {
  const lifetime = input.lifetimeSeconds ?? DEFAULT_JWT_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetime) || lifetime <= 0) {
    throw new ValidationError(
      'invalidParameter',
      'The JWT lifetime must be a positive whole number of seconds',
    );
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(input.privateKeyPem);
  } catch {
    throw new ValidationError('invalidParameter', 'The private key is not a readable PEM private key');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new ValidationError('invalidParameter', 'The private key must be an EC P-256 key (ES256)');
  }
  const iat = toUnixSeconds(input.now ?? new Date());
  const header = { alg: 'ES256', typ: 'JWT', kid: input.credentialId };
  const payload = {
    iss: input.appId,
    sub: input.subject ?? input.appId,
    aud: input.audience,
    iat,
    exp: iat + lifetime,
    jti: randomUUID(),
  };
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  // JWS wants the raw r‖s signature (RFC 7518 §3.4), not node's default DER encoding.
  const signature = sign('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

function base64urlJson(value: object): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
