/**
 * Builds hostile bearer tokens with `node:crypto` only, independent of the service's own minting
 * code, so the security suites can produce every token a misbehaving or malicious client could send:
 * any header, any claims, signed with any algorithm and key, or not signed at all.
 */
import {
  createHmac,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  randomUUID,
  sign,
} from 'node:crypto';

/** How a forged token is signed. */
export type ForgeSigner =
  /** ECDSA P-256/SHA-256 with the raw r‖s signature (RFC 7518 §3.4), as a correct client signs. */
  | { readonly kind: 'ES256'; readonly key: KeyObject | string }
  /** ECDSA P-384/SHA-384, raw r‖s. */
  | { readonly kind: 'ES384'; readonly key: KeyObject | string }
  /** ECDSA P-521/SHA-512, raw r‖s. */
  | { readonly kind: 'ES512'; readonly key: KeyObject | string }
  /** RSASSA-PKCS1-v1_5 with SHA-256. */
  | { readonly kind: 'RS256'; readonly key: KeyObject | string }
  /** Ed25519 (the signature has the same length as an ES256 one). */
  | { readonly kind: 'EdDSA'; readonly key: KeyObject | string }
  /** HMAC-SHA256 keyed with `secret` (the algorithm-confusion attack uses the public key PEM). */
  | { readonly kind: 'HS256'; readonly secret: string }
  /** HMAC-SHA512 keyed with `secret`: 64 bytes, the length of an ES256 signature. */
  | { readonly kind: 'HS512'; readonly secret: string }
  /** No signature at all (`alg: none`): the third segment is empty. */
  | { readonly kind: 'unsigned' }
  /** A given base64url string as the third segment. */
  | { readonly kind: 'raw'; readonly signature: string };

/** base64url of the UTF-8 JSON of a value (a JWT segment). */
export function jsonSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function privateKey(key: KeyObject | string): KeyObject {
  return typeof key === 'string' ? createPrivateKey(key) : key;
}

/** The base64url signature of `signingInput` made by `signer`. */
function signatureOf(signingInput: string, signer: ForgeSigner): string {
  const data = Buffer.from(signingInput, 'utf8');
  switch (signer.kind) {
    case 'ES256':
      return sign('sha256', data, { key: privateKey(signer.key), dsaEncoding: 'ieee-p1363' }).toString(
        'base64url',
      );
    case 'ES384':
      return sign('sha384', data, { key: privateKey(signer.key), dsaEncoding: 'ieee-p1363' }).toString(
        'base64url',
      );
    case 'ES512':
      return sign('sha512', data, { key: privateKey(signer.key), dsaEncoding: 'ieee-p1363' }).toString(
        'base64url',
      );
    case 'RS256':
      return sign('sha256', data, privateKey(signer.key)).toString('base64url');
    case 'EdDSA':
      return sign(null, data, privateKey(signer.key)).toString('base64url');
    case 'HS256':
      return createHmac('sha256', signer.secret).update(data).digest('base64url');
    case 'HS512':
      return createHmac('sha512', signer.secret).update(data).digest('base64url');
    case 'unsigned':
      return '';
    case 'raw':
      return signer.signature;
  }
}

/**
 * Assembles `header.payload.signature` from any header and payload objects.
 * @param header - the JOSE header, written as given (no `alg` is added or checked)
 * @param payload - the claims, written as given
 * @param signer - how the third segment is made
 */
export function forgeJwt(
  header: Readonly<Record<string, unknown>>,
  payload: Readonly<Record<string, unknown>>,
  signer: ForgeSigner,
): string {
  const signingInput = `${jsonSegment(header)}.${jsonSegment(payload)}`;
  return `${signingInput}.${signatureOf(signingInput, signer)}`;
}

/** Unix seconds now (or of `at`). */
export function unixNow(at: Date = new Date()): number {
  return Math.floor(at.getTime() / 1000);
}

/**
 * The claims of a token the service accepts: `iss` and `sub` the app, `aud` the audience, issued
 * now, valid for an hour, a fresh `jti`. Spread changes over it to break one rule at a time.
 */
export function validClaims(appId: string, audience: string): Record<string, unknown> {
  const iat = unixNow();
  return { iss: appId, sub: appId, aud: audience, iat, exp: iat + 3600, jti: randomUUID() };
}

/** The header of a token the service accepts: `{alg: 'ES256', typ: 'JWT', kid}`. */
export function validHeader(kid: string): Record<string, unknown> {
  return { alg: 'ES256', typ: 'JWT', kid };
}

/** Copy of `claims` without the named claims. */
export function withoutClaims(claims: Readonly<Record<string, unknown>>, ...names: string[]) {
  const copy: Record<string, unknown> = { ...claims };
  for (const name of names) delete copy[name];
  return copy;
}

/**
 * Replaces the header of a signed token, keeping its payload and signature (a tampered header).
 */
export function replaceHeader(token: string, header: Readonly<Record<string, unknown>>): string {
  const [, payload = '', signature = ''] = token.split('.');
  return `${jsonSegment(header)}.${payload}.${signature}`;
}

/**
 * Replaces the payload of a signed token, keeping its header and signature (a tampered payload).
 */
export function replacePayload(token: string, payload: Readonly<Record<string, unknown>>): string {
  const [header = '', , signature = ''] = token.split('.');
  return `${header}.${jsonSegment(payload)}.${signature}`;
}

/**
 * Changes one character in the middle of the signature segment. A middle character carries six
 * signature bits; the last one of an 86-character ES256 signature carries only four, and changing
 * its two padding bits would not change the decoded signature at all.
 */
export function flipSignatureCharacter(token: string): string {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const at = Math.floor(signature.length / 2);
  const replacement = signature[at] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, at)}${replacement}${signature.slice(at + 1)}`;
}

/** A fresh key pair of the given kind, as KeyObjects. */
export function freshKeyPair(kind: 'P-256' | 'P-384' | 'P-521' | 'RSA' | 'Ed25519'): {
  publicKey: KeyObject;
  privateKey: KeyObject;
} {
  if (kind === 'RSA') return generateKeyPairSync('rsa', { modulusLength: 2048 });
  if (kind === 'Ed25519') return generateKeyPairSync('ed25519');
  return generateKeyPairSync('ec', { namedCurve: kind });
}

/** A random, well-formed credential id (32 lowercase hex digits) that names no credential. */
export function unknownCredentialId(): string {
  return randomBytes(16).toString('hex');
}

/** A well-formed service token secret (32 random bytes, base64url, 43 characters). */
export function randomServiceTokenSecret(): string {
  return randomBytes(32).toString('base64url');
}
