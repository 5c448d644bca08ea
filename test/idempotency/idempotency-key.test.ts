import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lib/errors';
import { hashIdempotencyKey, parseIdempotencyKey } from '../../lib/idempotency/idempotency-key';

function rejection(raw: unknown): ServiceError {
  try {
    parseIdempotencyKey(raw);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
}

describe('parseIdempotencyKey', () => {
  it('means "not idempotent" when the header is absent', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it('accepts 1 to 255 printable ASCII characters, spaces and punctuation included', () => {
    for (const key of [
      'a',
      ' ',
      '~',
      'order 42: retry #1',
      'x'.repeat(255),
      '6f1c2a7e-0d1b-4c47-9f3e-1a2b3c4d5e6f',
    ]) {
      expect(parseIdempotencyKey(key)).toBe(key);
    }
  });

  it('rejects empty, too long, control and non-ASCII keys with 400107 saying what is allowed', () => {
    for (const raw of ['', 'x'.repeat(256), 'tab\there', 'nul\u0000', 'del\u007f', 'clé', 'キー', 42]) {
      const error = rejection(raw);
      expect(error.code).toBe('invalidIdempotencyKey');
      expect(`${error.status}${error.definition.subCode}`).toBe('400107');
      expect(error.message).toContain('1–255 printable ASCII characters');
    }
  });
});

describe('hashIdempotencyKey', () => {
  it('stores the SHA-256 hex of the key, never the key', () => {
    // echo -n 'abc' | sha256sum
    expect(hashIdempotencyKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hashIdempotencyKey('abc ')).not.toBe(hashIdempotencyKey('abc'));
  });
});
