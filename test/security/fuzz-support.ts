/**
 * What the fuzz suites share: fast-check settings, arbitraries of hostile input, and the check
 * that a response is either a success or the documented error body.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { ERROR_CODES } from '../../lib/errors';
import { expectErrorShape, type ParsedResult } from '../support/api-events';

/**
 * fast-check parameters of a property. Runs are reproducible by default (a fixed seed per
 * property); `FUZZ_SEED=<integer>` replays a reported seed, `FUZZ_SEED=random` explores new input,
 * and `FUZZ_RUNS=<n>` changes the number of runs (e.g. for a long local session). On failure
 * fast-check prints the seed, the path and the shrunk counterexample.
 * @param numRuns - runs of this property in a normal test run
 * @param seed - the fixed seed of this property
 */
export function fuzzParameters(numRuns: number, seed: number): { numRuns: number; seed?: number } {
  const seedSetting = process.env.FUZZ_SEED;
  const runs = Number(process.env.FUZZ_RUNS);
  return {
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : numRuns,
    ...(seedSetting === 'random' ? {} : { seed: seedSetting === undefined ? seed : Number(seedSetting) }),
  };
}

/** `error_code` → its row of the documented table. */
const DOCUMENTED = new Map(
  Object.values(ERROR_CODES).map((definition) => [`${definition.status}${definition.subCode}`, definition]),
);

/**
 * Asserts what every response must satisfy, whatever the input: no 5xx, a `tid` header, and for
 * every non-2xx the documented error body whose `error_code` is a row of the README's table (with
 * that row's status, slug, level and category); a 401 also carries the `WWW-Authenticate` challenge.
 */
export function expectDocumentedResponse(result: ParsedResult): void {
  expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBeLessThan(500);
  expect(result.headers.tid).toEqual(expect.any(String));
  if (result.status < 300) return;
  expectErrorShape(result);
  const definition = DOCUMENTED.get(String(result.body.error_code));
  expect(definition, `undocumented error_code ${String(result.body.error_code)}`).toBeDefined();
  expect(result.body).toMatchObject({
    status_code: definition?.status,
    error: definition?.slug,
    error_level: definition?.level,
    error_category: definition?.category,
  });
  expect(result.body.message).toEqual(expect.any(String));
  if (result.status === 401) {
    expect(result.headers['www-authenticate']).toMatch(/^Bearer realm="model-engine-api"/);
  }
}

/** Strings that have broken parsers, routers and templates elsewhere. */
const NASTY_STRINGS = [
  '',
  ' ',
  '..',
  '../',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '%2e%2e%2f',
  '%',
  '\\',
  '/',
  '?',
  '#',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  'true',
  '0',
  '-1',
  '1e309',
  '$' + '{jndi:ldap://x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '\r\nX-Injected: 1',
  '\u202e\u0041\u0042',
  '\ufeff',
  '\ud800',
  '\udfff',
  '🎵🎤',
  '👨‍👩‍👧‍👦',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  'ｅｎｇｉｎｅ',
  '２０２４-０１-０１',
  '٢٠٢٤-٠١-٠١',
];

/** A lone UTF-16 surrogate (not valid Unicode, but a valid JSON `\uD800` escape). */
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

/**
 * Hostile strings: ASCII with control characters, any code point, printable graphemes (emoji,
 * combining marks), lone surrogates, known nasty values, and long runs (up to 70 000 characters,
 * beyond the 64 KiB body limit once in a body).
 */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: loneSurrogate, minLength: 1, maxLength: 3 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'é', '字', '🎵', ' ', '\u0000', '%'), fc.integer({ min: 201, max: 70_000 }))
      .map(([unit, count]) => unit.repeat(count)),
  },
);

/** Numbers at the edges: small integers, negatives, fractions, -0, huge and tiny doubles. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 0.5, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, 2 ** 53),
);

/** Any JSON value, its strings drawn from all of Unicode. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' });

/** A JSON value of a random type with a hostile leaf: what a typo or an attacker puts in a field. */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false),
  fc.array(hostileString, { maxLength: 5 }),
  anyJson,
);

/** A value usable as a JSON object key, including prototype names. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'lyrics ', 'Lyrics', 'bgm-index', 'modelVersion'),
);

/** The content types a client may send, valid, odd and invalid. */
export const contentType: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-16',
    'application/vnd.api+json',
    'application/problem+json; q=1',
    'APPLICATION/JSON',
    'application/json;',
    'application/jsonx',
    ' application/json',
    'application/json\u0000',
    'text/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=----x',
    'application/octet-stream',
    '*/*',
    '',
  ),
  hostileString.filter((value) => value.length < 2000),
);

/** Junk `Authorization` header values (never a valid token). */
export const junkAuthorization: fc.Arbitrary<string> = fc.oneof(
  hostileString.filter((value) => value.length < 10_000),
  hostileString.filter((value) => value.length < 10_000).map((value) => `Bearer ${value}`),
  fc
    .tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Digest', 'Bearer:'), hostileString)
    .map(([scheme, value]) => `${scheme} ${value.slice(0, 9000)}`),
  fc
    .tuple(
      fc.constantFrom('st_', 'eyJ', 'eyJhbGciOiJub25lIn0.'),
      fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
    )
    .map(([prefix, rest]) => `Bearer ${prefix}${rest}`),
);

/**
 * Whether a query flag value, lower-cased, names a property of `Object.prototype` (`constructor`,
 * `__proto__`). lib/query-flags.ts looks flags up in a plain object, so these are accepted as
 * `true` instead of refused (a reported bug with its own known-bug tests); the flag properties
 * leave them out so that they keep checking everything else.
 */
export function isPrototypeName(value: string): boolean {
  return Object.getOwnPropertyNames(Object.prototype).includes(value.toLowerCase());
}

/** Today as `yyyy-MM-dd` (UTC). */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
