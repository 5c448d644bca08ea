/**
 * Property-based fuzzing of Engine.Invoke through its exported handler: bodies, engine ids, query
 * strings and headers. Whatever the input, the answer is never a 5xx, and every non-2xx carries
 * the documented error body with a `tid`.
 *
 * Generators lean towards input that is refused before rendering (a valid request renders audio
 * for 0.1–0.3 s); the few valid requests they produce do render and are checked as successes.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-apps';
import {
  anyJson,
  contentType,
  expectDocumentedResponse,
  fuzzParameters,
  hostileJsonValue,
  hostileKey,
  hostileNumber,
  hostileString,
  isPrototypeName,
  junkAuthorization,
} from './fuzz-support';
import { callInvoke, HIKARI, LEO } from './handler-calls';

// Rate limiting (if configured) is not under test here and would turn runs into 429s.
process.env.RATE_LIMIT_PER_MINUTE = '0';

const ENGINES = [HIKARI, LEO] as const;
const MAX_BODY_BYTES = 64 * 1024;
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});

/** Headers of a well-formed request with the app's service token. */
function goodHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', authorization: `Bearer ${app.stToken}` };
}

/** Counts rendered (200) responses, to show that valid input was exercised too. */
const rendered = { count: 0 };

function expectInvokeResponse(result: Awaited<ReturnType<typeof callInvoke>>): void {
  expectDocumentedResponse(result);
  if (result.status === 200) {
    rendered.count += 1;
    expect(result.body.result).toMatchObject({ code: '0000', message: 'SUCCESS' });
    expect(result.body.usage).toEqual(result.body.usages);
  }
}

/** Lines a singer can sing; mixed in rarely so that some fuzzed requests are valid. */
const singableLine = fc.constantFrom('hello', 'la la', 'sing', 'きらきら', 'ほし');

const lyricLine = fc.oneof({ weight: 6, arbitrary: hostileString }, { weight: 1, arbitrary: singableLine });

/** Objects shaped like the lyrics-swap request with fields of random types and extra fields. */
const randomlyTypedBody = fc
  .tuple(
    fc.record(
      {
        lyrics: fc.oneof(
          { weight: 4, arbitrary: fc.array(lyricLine, { maxLength: 8 }) },
          { weight: 1, arbitrary: fc.array(lyricLine, { minLength: 30, maxLength: 40 }) },
          { weight: 2, arbitrary: hostileJsonValue },
        ),
        bgm_index: fc.oneof(hostileNumber, hostileJsonValue),
        model_version: fc.oneof(fc.constantFrom('v1', 'v2', 'V1', 'v1 ', '', 'latest'), hostileJsonValue),
      },
      { requiredKeys: [] },
    ),
    fc.oneof(
      { weight: 4, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.dictionary(hostileKey, anyJson, { maxKeys: 3 }) },
    ),
  )
  .map(([fields, extra]) => ({ ...extra, ...fields }));

/**
 * Requests close to valid: one or two lines, mostly singable, and options at and around the valid
 * ones. Kept short because a valid request renders (≈0.3–1 s for two lines on the shared cores).
 */
const nearValidBody = fc.record(
  {
    lyrics: fc.array(
      fc.oneof({ weight: 4, arbitrary: singableLine }, { weight: 1, arbitrary: hostileString }),
      {
        minLength: 1,
        maxLength: 2,
      },
    ),
    bgm_index: fc.constantFrom(0, 1, 2, -1, 0.5),
    model_version: fc.constantFrom('v1', 'v2', 'v0'),
  },
  { requiredKeys: ['lyrics'] },
);

const lyricsShapedBody = fc.oneof(
  { weight: 4, arbitrary: randomlyTypedBody },
  { weight: 1, arbitrary: nearValidBody },
);

describe('Engine.Invoke fuzzing: never a 5xx, always the documented error body', () => {
  it('answers any JSON value or non-JSON text as the body', async () => {
    const body = fc.oneof(
      anyJson.map((value) => JSON.stringify(value)),
      hostileString,
      fc.constantFrom(
        '{',
        '{"lyrics":',
        '[1,]',
        '{"a":1}{"b":2}',
        'NaN',
        '\u0000',
        '{"lyrics":["a"]',
        '\ufeff{}',
      ),
      // Nesting up to 500 levels (deeper than MAX_BODY_DEPTH is refused with 400100).
      fc
        .tuple(fc.integer({ min: 1, max: 500 }), fc.constantFrom('[', '{"lyrics":[', '{"lyrics":{"a":'))
        .map(([depth, open]) => {
          const close = open === '[' ? ']' : open === '{"lyrics":[' ? ']}' : '}}';
          return `${open.repeat(depth)}1${close.repeat(depth)}`;
        }),
    );

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENGINES), body, async (engineId, text) => {
        expectInvokeResponse(await callInvoke({ engineId, body: text, headers: goodHeaders() }));
      }),
      fuzzParameters(300, 0x5eed01),
    );
  });

  it('answers objects with lyrics, bgm_index and model_version of random types', async () => {
    const before = rendered.count;

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENGINES), lyricsShapedBody, async (engineId, value) => {
        expectInvokeResponse(
          await callInvoke({ engineId, body: JSON.stringify(value), headers: goodHeaders() }),
        );
      }),
      fuzzParameters(200, 0x5eed02),
    );

    // The generators are meant to reach the engine now and then, not only the validators.
    expect(rendered.count - before).toBeGreaterThan(0);
  });

  it('answers bodies around and far beyond the 64 KiB limit with 413 exactly when they exceed it', async () => {
    const hugeArray = fc
      .tuple(
        fc.constantFrom('"a"', '"é"', '"🎵"', '0', 'null', '{}', '[]', '"\\u0000"'),
        fc.integer({ min: 4_000, max: 40_000 }),
      )
      .map(([item, count]) => `{"lyrics":[${Array.from({ length: count }, () => item).join(',')}]}`);
    const hugeString = fc
      .tuple(fc.constantFrom('a', 'é', '字', '🎵'), fc.integer({ min: 15_000, max: 70_000 }))
      .map(([unit, count]) => JSON.stringify({ lyrics: [unit.repeat(count)] }));

    await fc.assert(
      fc.asyncProperty(fc.oneof(hugeArray, hugeString), async (text) => {
        const result = await callInvoke({ engineId: LEO, body: text, headers: goodHeaders() });

        expectInvokeResponse(result);
        const tooLarge = Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES;
        expect(result.body.error_code).toBe(tooLarge ? '413101' : '400102');
      }),
      fuzzParameters(60, 0x5eed03),
    );
  });

  it('answers random engine ids with 400103 or 404100, before looking at the body', async () => {
    const hex32 = fc.string({
      unit: fc.constantFrom(...'0123456789ABCDEFabcdef'),
      minLength: 30,
      maxLength: 34,
    });
    const engineId = fc.oneof(
      hostileString.filter((id) => id.length < 5_000),
      fc.tuple(hex32, hostileString).map(([prefix, name]) => `${prefix}.${name.slice(0, 100)}`),
      fc
        .tuple(
          fc.constantFrom(...ENGINES),
          fc.constantFrom('..', '/..', '%00', '\u0000', '/', '.', ' ', 'x', '.hikari'),
        )
        .chain(([id, affix]) => fc.constantFrom(`${id}${affix}`, `${affix}${id}`)),
      fc.constantFrom(
        '5A22C6DFE641404096876E9928EA1294.HIKARI',
        '5a22c6dfe641404096876e9928ea1294.hikari',
        '5A22C6DFE641404096876E9928EA1294.nobody',
        '00000000000000000000000000000000.hikari',
        '５A22C6DFE641404096876E9928EA1294.hikari',
        `5A22C6DFE641404096876E9928EA1294.${'a'.repeat(63)}`,
        `5A22C6DFE641404096876E9928EA1294.${'a'.repeat(64)}`,
      ),
    );

    await fc.assert(
      fc.asyncProperty(engineId, async (id) => {
        // `{}` misses `lyrics`: a known engine would answer 400102, so nothing renders.
        const result = await callInvoke({ engineId: id, body: '{}', headers: goodHeaders() });

        expectInvokeResponse(result);
        const known = (ENGINES as readonly string[]).includes(id);
        expect(result.body.error_code).toBe(
          known ? '400102' : /^[0-9A-F]{32}\.[a-z0-9][a-z0-9-]{0,62}$/.test(id) ? '404100' : '400103',
        );
      }),
      fuzzParameters(300, 0x5eed04),
    );
  });

  it('answers random query strings: show_refs accepts only true/false/1/0', async () => {
    const showRefs = fc
      .oneof(
        fc.constantFrom('true', 'false', '1', '0', 'TRUE', 'False', '', 'yes', 'on', '2', ' true', 'true '),
        hostileString.filter((value) => value.length < 2_000),
      )
      .filter((value) => !isPrototypeName(value));
    const query = fc
      .tuple(
        fc.option(showRefs, { nil: undefined }),
        fc.dictionary(
          hostileKey,
          hostileString.filter((value) => value.length < 500),
          { maxKeys: 3 },
        ),
      )
      .map(([flag, extra]) => ({ ...extra, ...(flag === undefined ? {} : { show_refs: flag }) }));

    await fc.assert(
      fc.asyncProperty(query, async (parameters) => {
        // No lyrics: a valid flag then leads to 400102, an invalid one to 400101; nothing renders.
        const result = await callInvoke({
          engineId: HIKARI,
          body: '{"lyrics":[]}',
          headers: goodHeaders(),
          query: parameters,
        });

        expectInvokeResponse(result);
        const flag = Object.hasOwn(parameters, 'show_refs') ? parameters.show_refs : undefined;
        const valid =
          flag === undefined || flag === '' || ['true', 'false', '1', '0'].includes(flag.toLowerCase());
        expect(result.body.error_code).toBe(valid ? '400102' : '400101');
      }),
      fuzzParameters(300, 0x5eed05),
    );
  });

  it('answers random headers: content types, junk and duplicate-ish authorization, odd extras', async () => {
    const authorizationHeaders = fc.oneof(
      fc.constant({ kind: 'valid' as const, headers: {} as Record<string, string> }),
      junkAuthorization.map((value) => ({ kind: 'junk' as const, headers: { authorization: value } })),
      junkAuthorization.map((value) => ({ kind: 'junk' as const, headers: { Authorization: value } })),
      junkAuthorization.map((value) => ({
        kind: 'mixed' as const,
        headers: { Authorization: value, authorization: '' },
      })),
      junkAuthorization.map((value) => ({ kind: 'mixed' as const, headers: { AUTHORIZATION: value } })),
    );
    const extraHeaders = fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'Content-Type',
          'CONTENT-TYPE',
          'idempotency-key',
          'Idempotency-Key',
          'x-forwarded-for',
          'host',
        ),
        fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-_'), minLength: 1, maxLength: 20 }),
      ),
      hostileString.filter((value) => value.length < 2_000),
      { maxKeys: 3 },
    );
    const body = fc.oneof(
      fc.constant('{"lyrics":[]}'),
      fc.constant('{"lyrics":["🎵"]}'),
      anyJson.map((value) => JSON.stringify(value)),
      hostileString.filter((value) => value.length < 5_000),
      fc.constant(undefined),
    );

    await fc.assert(
      fc.asyncProperty(
        contentType,
        authorizationHeaders,
        extraHeaders,
        body,
        fc.boolean(),
        async (type, auth, extra, text, base64) => {
          const headers: Record<string, string> = {
            'content-type': type,
            ...(auth.kind === 'valid' ? { authorization: `Bearer ${app.stToken}` } : {}),
            ...extra,
            ...auth.headers,
          };

          const result = await callInvoke({ engineId: HIKARI, body: text, headers, isBase64Encoded: base64 });

          expectInvokeResponse(result);
          if (auth.kind === 'junk') expect(result.status).toBe(401);
        },
      ),
      fuzzParameters(300, 0x5eed06),
    );
  });
});

describe('Engine.Invoke body limits', () => {
  it('accepts a body of exactly 64 KiB for validation and refuses one byte more with 413101', async () => {
    // 'é' is two bytes in UTF-8: the limit counts bytes, not characters.
    const frame = (filler: string) => JSON.stringify({ lyrics: [filler] });
    const fillerBytes = MAX_BODY_BYTES - Buffer.byteLength(frame(''), 'utf8');
    const atLimit = frame(`${'é'.repeat(Math.floor(fillerBytes / 2))}${'a'.repeat(fillerBytes % 2)}`);
    const overLimit = frame(`${'é'.repeat(Math.floor(fillerBytes / 2))}${'a'.repeat((fillerBytes % 2) + 1)}`);

    const at = await callInvoke({ engineId: LEO, body: atLimit, headers: goodHeaders() });
    const over = await callInvoke({ engineId: LEO, body: overLimit, headers: goodHeaders() });

    expect(Buffer.byteLength(atLimit, 'utf8')).toBe(MAX_BODY_BYTES);
    expectDocumentedResponse(at);
    expect(at.body.error_code).toBe('400102');
    expectDocumentedResponse(over);
    expect(over.body).toMatchObject({ error_code: '413101', data: { max_bytes: MAX_BODY_BYTES } });
  });
});

describe('Engine.Invoke regressions of fixed bugs', () => {
  // Fixed bug: lib/engines/request-validation.ts `validateEngineRequest`
  // copies the parsed body with `structuredClone`, which overflows the stack on a body nested
  // ≈2 000 levels deep (≈12 KB, well under the 64 KiB limit; 5 000 levels here, ≈30 KB, to be
  // clear of any stack size); the RangeError became a 500
  // internal_error. Bodies deeper than MAX_BODY_DEPTH are now refused with 400100 first.
  it('answers a deeply nested body (≈30 KB) with a 4xx, not a 500', async () => {
    const depth = 5_000;
    const text = `{"lyrics":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;

    const result = await callInvoke({ engineId: LEO, body: text, headers: goodHeaders() });

    expect(Buffer.byteLength(text, 'utf8')).toBeLessThan(MAX_BODY_BYTES);
    expectDocumentedResponse(result);
  });

  // Fixed bug: lib/query-flags.ts `parseFlag` read
  // `FLAG_VALUES[value.toLowerCase()]` from a plain object literal, so `constructor` and `__proto__`
  // find Object.prototype members (a function, an object): truthy, accepted as `true` instead of
  // refused with 400101. Now a Map.
  it.each(['constructor', '__proto__', 'CONSTRUCTOR'])('refuses show_refs=%s with 400101', async (flag) => {
    const result = await callInvoke({
      engineId: HIKARI,
      body: '{"lyrics":[]}',
      headers: goodHeaders(),
      query: { show_refs: flag },
    });

    expectDocumentedResponse(result);
    expect(result.body.error_code).toBe('400101');
  });
});
