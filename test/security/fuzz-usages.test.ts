/**
 * Property-based fuzzing of Usages.List through its exported handler: path app ids, query strings
 * and headers. Whatever the input, the answer is never a 5xx, every non-2xx carries the documented
 * error body with a `tid`, and the outcome is the one the README's rules give for that input.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-apps';
import {
  expectDocumentedResponse,
  fuzzParameters,
  hostileKey,
  hostileString,
  isPrototypeName,
  junkAuthorization,
  today,
} from './fuzz-support';
import { callUsages } from './handler-calls';

// Rate limiting (if configured) is not under test here and would turn runs into 429s.
process.env.RATE_LIMIT_PER_MINUTE = '0';

const MS_PER_DAY = 86_400_000;
const MAX_RANGE_DAYS = 366;
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});

function tokenHeaders(): Record<string, string> {
  return { authorization: `Bearer ${app.stToken}` };
}

/** `yyyy-MM-dd` of a date (UTC). */
function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Calendar days that exist, in the years a report is asked for. */
const realDay = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true })
  .map(day);

/** Values of `start` and `end`: real days, impossible days, other formats, and hostile strings. */
const dayValue = fc.oneof(
  { weight: 6, arbitrary: realDay },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '2024-02-30',
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-04-31',
      '2024-1-01',
      '2024/01/01',
      '20240101',
      '2024-01-01T00:00:00Z',
      ' 2024-01-01',
      '2024-01-01 ',
      '+02024-01-01',
      '-2024-01-01',
      '２０２４-０１-０１',
      '9999-12-31',
      '1000-01-01',
      '275760-09-13',
      '2024-06-28\u0000',
      '',
    ),
  },
  { weight: 2, arbitrary: hostileString.filter((value) => value.length < 2_000) },
);

/** Values of `detail` and `date` (prototype names excluded: see the known-bug tests below). */
const flagValue = fc
  .oneof(
    fc.constantFrom('true', 'false', '1', '0', 'TRUE', 'False', '', 'yes', '2', ' 1'),
    hostileString.filter((value) => value.length < 500),
  )
  .filter((value) => !isPrototypeName(value));

/** Days since 1970-01-01 of a real `yyyy-MM-dd`; undefined for anything else. */
function dayNumber(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || day(new Date(ms)) !== value) return undefined;
  return ms / MS_PER_DAY;
}

function flagOk(value: string | undefined): boolean {
  return value === undefined || value === '' || ['true', 'false', '1', '0'].includes(value.toLowerCase());
}

/**
 * The `error_code` the README's rules give for a query of the caller's own app, or `200`.
 * Checked in the service's order: start, end, range, then the flags.
 */
function expectedOutcome(query: Readonly<Record<string, string | undefined>>): string {
  const start = query.start === undefined ? undefined : dayNumber(query.start);
  const end = query.end === undefined ? undefined : dayNumber(query.end);
  if (start === undefined || end === undefined) return '400101';
  if (start > end || end - start + 1 > MAX_RANGE_DAYS) return '400106';
  if (!flagOk(query.detail) || !flagOk(query.date)) return '400101';
  return '200';
}

const query = fc
  .tuple(
    fc.record(
      {
        start: dayValue,
        end: fc.oneof(dayValue, fc.constant('<near start>')),
        detail: flagValue,
        date: flagValue,
      },
      { requiredKeys: [] },
    ),
    fc.integer({ min: -3, max: 400 }),
    fc.oneof(
      { weight: 4, arbitrary: fc.constant({}) },
      {
        weight: 1,
        arbitrary: fc.dictionary(
          hostileKey,
          hostileString.filter((value) => value.length < 500),
          { maxKeys: 3 },
        ),
      },
    ),
  )
  .map(([fields, offset, extra]) => {
    // `end` is often a few days after a real `start`, so valid ranges and the 366-day edge occur.
    const startDay = fields.start === undefined ? undefined : dayNumber(fields.start);
    const end =
      fields.end !== '<near start>'
        ? fields.end
        : startDay === undefined
          ? today()
          : day(new Date((startDay + offset) * MS_PER_DAY));
    const parameters: Record<string, string> = { ...extra };
    for (const [name, value] of Object.entries({ ...fields, end })) {
      if (value !== undefined) parameters[name] = value;
    }
    return parameters;
  });

describe('Usages.List fuzzing: never a 5xx, always the documented error body', () => {
  it('answers random query strings as the rules say: 400101, 400106 or 200', async () => {
    const seen = new Set<string>();

    await fc.assert(
      fc.asyncProperty(query, async (parameters) => {
        const result = await callUsages({ appId: app.appId, query: parameters, headers: tokenHeaders() });

        expectDocumentedResponse(result);
        const expected = expectedOutcome(parameters);
        seen.add(expected);
        if (expected === '200') {
          expect(result.status).toBe(200);
          expect(result.body).toMatchObject({ start: parameters.start, end: parameters.end });
        } else {
          expect(result.body.error_code).toBe(expected);
        }
      }),
      fuzzParameters(300, 0x5eed11),
    );

    // Every branch of the rules was exercised.
    expect([...seen].sort()).toEqual(['200', '400101', '400106']);
  });

  it("answers random path app ids with 403100 unless the id is the token's own app", async () => {
    const upperHex = fc.string({
      unit: fc.constantFrom(...'0123456789ABCDEF'),
      minLength: 32,
      maxLength: 32,
    });
    const appId = fc.oneof(
      hostileString.filter((id) => id.length < 5_000),
      upperHex,
      fc.constantFrom(
        '<own>',
        '<own lowercase>',
        '<own>/..',
        '<own>%00',
        '../<own>',
        '<own> ',
        '<own>\u0000',
      ),
    );

    await fc.assert(
      fc.asyncProperty(appId, async (pattern) => {
        const id = pattern.replace('<own lowercase>', app.appId.toLowerCase()).replace('<own>', app.appId);
        const result = await callUsages({
          appId: id,
          query: { start: today(), end: today() },
          headers: tokenHeaders(),
        });

        expectDocumentedResponse(result);
        if (id === app.appId) expect(result.status).toBe(200);
        else expect(result.body.error_code).toBe('403100');
      }),
      fuzzParameters(300, 0x5eed12),
    );
  });

  it('answers junk and duplicate-ish Authorization headers with 401, and odd extra headers', async () => {
    const headers = fc.oneof(
      junkAuthorization.map((value) => ({ junk: true, headers: { authorization: value } })),
      junkAuthorization.map((value) => ({ junk: true, headers: { Authorization: value } })),
      junkAuthorization.map((value) => ({
        junk: true,
        headers: { AUTHORIZATION: value, 'x-authorization': 'x' },
      })),
      junkAuthorization.map((value) => ({
        junk: false,
        headers: { ...tokenHeaders(), Authorization: value },
      })),
      fc.constant({ junk: false, headers: { ...tokenHeaders(), 'content-type': 'text/plain' } }),
    );
    const extra = fc.dictionary(
      fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'), minLength: 1, maxLength: 20 }),
      hostileString.filter((value) => value.length < 2_000),
      { maxKeys: 3 },
    );

    await fc.assert(
      fc.asyncProperty(headers, extra, async (auth, extras) => {
        const result = await callUsages({
          appId: app.appId,
          query: { start: today(), end: today() },
          headers: { ...extras, ...auth.headers },
        });

        expectDocumentedResponse(result);
        if (auth.junk) expect(result.status).toBe(401);
      }),
      fuzzParameters(200, 0x5eed13),
    );
  });
});

describe('Usages.List regressions of fixed bugs', () => {
  // Fixed bug: lib/query-flags.ts `parseFlag` read
  // `FLAG_VALUES[value.toLowerCase()]` from a plain object literal, so `detail=constructor` or
  // `date=__proto__` find Object.prototype members and are taken as `true` instead of refused with
  // 400101 (api-notes B5: anything but true/false/1/0 is a 400). Now a Map.
  it.each([
    ['detail', 'constructor'],
    ['date', '__proto__'],
  ])('refuses %s=%s with 400101', async (name, value) => {
    const result = await callUsages({
      appId: app.appId,
      query: { start: today(), end: today(), [name]: value },
      headers: tokenHeaders(),
    });

    expectDocumentedResponse(result);
    expect(result.body.error_code).toBe('400101');
  });
});
