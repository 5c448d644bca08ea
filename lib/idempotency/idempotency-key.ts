/**
 * The `Idempotency-Key` request header: its allowed form and the hash stored in its place.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '../errors';

/** Longest accepted key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** 1–255 printable ASCII characters (0x20–0x7E). */
const KEY_PATTERN = new RegExp(`^[\\x20-\\x7E]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`);

/**
 * Checks the raw header value.
 * @param raw - the `idempotency-key` header as received; `undefined` when the request has none
 * @returns the key, or `undefined` when no header was sent (the request is not idempotent)
 * @throws ValidationError `invalidIdempotencyKey` (400) when the value is not 1–255 printable ASCII characters
 */
export function parseIdempotencyKey(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !KEY_PATTERN.test(raw)) {
    const length = typeof raw === 'string' ? raw.length : 0;
    throw new ValidationError(
      'invalidIdempotencyKey',
      `The Idempotency-Key header must be 1–${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (0x20–0x7E), e.g. a UUID; got ${length} characters${length > 0 ? ' outside that form' : ''}`,
      { details: { max_length: MAX_IDEMPOTENCY_KEY_LENGTH, length } },
    );
  }
  return raw;
}

/**
 * The form a key is stored in: lowercase hex SHA-256 of its UTF-8 bytes (the raw key is never stored).
 * @returns 64 hex characters
 */
export function hashIdempotencyKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
