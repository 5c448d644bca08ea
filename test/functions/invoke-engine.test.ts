import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/invoke-engine';
import { EngineCatalog } from '../../lib/engines/catalog';
import { invokeEngine } from '../../lib/engines/invoke-engine';
import { StorageUnavailableError } from '../../lib/errors';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { UsageStore } from '../../lib/storage/usage-store';
import { apiEvent, expectErrorShape, lambdaContext, parseResult } from '../support/api-events';
import { createTestApp, type TestApp } from '../support/test-apps';

const ROUTE = 'POST /v1/engines/{engine_id}';
const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
const LEO_ENGINE = '5A22C6DFE641404096876E9928EA1294.leo';
const EXAMPLE = { lyrics: ['something like you', 'all about you'], bgm_index: 0, model_version: 'v1' };
const usageStore = new UsageStore({
  client: createDocumentClient(),
  tableName: process.env.TABLE_NAME ?? '',
});
let app: TestApp;
// Real results are WAVs of megabytes: idempotent ones go to the result store, a directory here.
// The handler reads its configuration on the first request, after this line.
const resultDir = mkdtempSync(join(tmpdir(), 'invoke-results-'));
process.env.RESULT_DIR = resultDir;

async function invoke(
  engineId: string,
  body: string | undefined,
  options: {
    token?: string | null;
    contentType?: string;
    query?: Record<string, string>;
    idempotencyKey?: string;
  } = {},
) {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  if (options.token !== null) headers.authorization = `Bearer ${options.token ?? app.stToken}`;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  const event = apiEvent({
    routeKey: ROUTE,
    path: `/v1/engines/${engineId}`,
    pathParameters: { engine_id: engineId },
    headers,
    body,
    query: options.query,
  });
  return parseResult(await handler(event, lambdaContext()));
}

async function totalCount(appId: string): Promise<number> {
  const today = new Date().toISOString().slice(0, 10);
  const rows = await usageStore.listAggregates(appId, { start: today, end: today });
  return rows.reduce((sum, row) => sum + row.count, 0);
}

beforeAll(async () => {
  app = await createTestApp();
});

afterAll(() => rmSync(resultDir, { recursive: true, force: true }));

describe('Engine.Invoke handler', () => {
  it('sings the spec example, bills floor(duration) under usage and usages, and meters it once', async () => {
    const result = await invoke(HIKARI, JSON.stringify(EXAMPLE));
    expect(result.status).toBe(200);
    const body = result.body as {
      usage: { energy: Record<string, number> };
      usages: unknown;
      result: Record<string, unknown>;
      refs?: unknown;
    };
    expect(body.result).toMatchObject({ code: '0000', message: 'SUCCESS' });
    expect(body.result.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const duration = body.result.duration;
    expect(typeof duration).toBe('number');
    expect(body.usage.energy).toEqual({
      request: 0,
      response: Math.floor(Number(duration)),
      service: 0,
      total: Math.floor(Number(duration)),
    });
    expect(body.usages).toEqual(body.usage);
    expect(body.refs).toBeUndefined();
    expect(String(body.result.mix_data_url)).toMatch(/^data:audio\/wav;base64,UklGR/);
    expect(body.result.lyrics).toHaveLength(2);
    for (const line of body.result.lyrics as string[]) expect(line).toMatch(/^SP( \S+)+ SP$/);
    expect(await totalCount(app.appId)).toBe(1);
  });

  it('explains the result with show_refs=true: engine, tid and the syllable-to-note alignment', async () => {
    const result = await invoke(HIKARI, JSON.stringify({ lyrics: ['きらきら'] }), {
      token: app.jwt,
      query: { show_refs: 'true' },
    });
    expect(result.status).toBe(200);
    const refs = result.body.refs as {
      engine_id: string;
      tid: string;
      alignment: { syllable: string; midi: number; start: number; duration: number }[][];
    };
    expect(refs.engine_id).toBe(HIKARI);
    expect(refs.tid).toBe(result.headers.tid);
    // A syllable held over several notes appears once per note: collapse the repeats.
    const syllables = (refs.alignment[0] ?? []).map((note) => note.syllable);
    expect(syllables.filter((syllable, k) => syllable !== syllables[k - 1])).toEqual([
      'ki',
      'ra',
      'ki',
      'ra',
    ]);
    for (const note of refs.alignment[0] ?? []) {
      expect(note.duration).toBeGreaterThan(0);
      expect(Number.isInteger(note.midi)).toBe(true);
    }
  });

  it('accepts the JSON media type in any letter case (RFC 9110)', async () => {
    const result = await invoke(LEO_ENGINE, JSON.stringify({ lyrics: ['la la la'] }), {
      contentType: 'Application/JSON; charset=UTF-8',
    });
    expect(result.status).toBe(200);
  });

  it('rejects bad input with 4xx error bodies and meters nothing', async () => {
    const before = await totalCount(app.appId);
    const cases: [Awaited<ReturnType<typeof invoke>>, number, string][] = [
      [await invoke(HIKARI, JSON.stringify({ lyric: ['typo'] })), 400, '400102'],
      [await invoke(HIKARI, '{"lyrics": ['), 400, '400100'],
      [await invoke(HIKARI, undefined), 400, '400100'],
      [await invoke(HIKARI, JSON.stringify(EXAMPLE), { contentType: 'text/plain' }), 415, '415100'],
      [await invoke('hikari', JSON.stringify(EXAMPLE)), 400, '400103'],
      [await invoke('5A22C6DFE641404096876E9928EA1294.nobody', JSON.stringify(EXAMPLE)), 404, '404100'],
      [await invoke(HIKARI, JSON.stringify({ ...EXAMPLE, bgm_index: 999 })), 400, '400105'],
      [await invoke(HIKARI, JSON.stringify({ ...EXAMPLE, model_version: 'v99' })), 400, '400105'],
      [await invoke(HIKARI, JSON.stringify({ lyrics: ['!!! ???'] })), 400, '400104'],
      [
        await invoke(HIKARI, JSON.stringify({ lyrics: Array.from({ length: 30 }, () => 'la la la') })),
        400,
        '400104',
      ],
      [await invoke(HIKARI, JSON.stringify({ lyrics: ['x'.repeat(70_000)] })), 413, '413101'],
      [await invoke(HIKARI, JSON.stringify(EXAMPLE), { token: null }), 401, '401100'],
      [await invoke(HIKARI, JSON.stringify(EXAMPLE), { query: { show_refs: 'maybe' } }), 400, '400101'],
    ];
    for (const [result, status, code] of cases) {
      expect({ status: result.status, code: result.body.error_code }).toEqual({ status, code });
      expectErrorShape(result);
    }
    expect(await totalCount(app.appId)).toBe(before);
  });

  it('returns no result when the metering write fails', async () => {
    const broken = new UsageStore({
      client: createDocumentClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 }),
      tableName: process.env.TABLE_NAME ?? '',
    });
    await expect(
      invokeEngine(
        {
          engineId: HIKARI,
          body: EXAMPLE,
          appId: app.appId,
          tid: 't',
          receivedAt: new Date(),
          showRefs: false,
        },
        {
          catalog: new EngineCatalog(),
          usageStore: broken,
          config: { usageTimeZone: 'UTC', executionRetentionDays: 1 },
        },
      ),
    ).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

describe('Engine.Invoke handler with an Idempotency-Key', () => {
  let idempotentApp: TestApp;
  const SHORT = { lyrics: ['きらきら'] };

  beforeAll(async () => {
    idempotentApp = await createTestApp();
  });

  it('replays the same response for a retry, marked idempotent-replayed, and meters it once', async () => {
    const options = {
      token: idempotentApp.stToken,
      idempotencyKey: 'retry-me-1',
      query: { show_refs: 'true' },
    };
    const first = await invoke(HIKARI, JSON.stringify(SHORT), options);
    const retry = await invoke(HIKARI, JSON.stringify(SHORT), options);

    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(JSON.stringify(retry.body)).toBe(JSON.stringify(first.body));
    expect((retry.body.result as { uuid: string }).uuid).toBe((first.body.result as { uuid: string }).uuid);
    expect(retry.body.refs).toBeDefined();
    expect(retry.headers.tid).not.toBe(first.headers.tid);
    expect(await totalCount(idempotentApp.appId)).toBe(1);
  });

  it('answers 409100 for the same key with another body and meters nothing', async () => {
    const options = { token: idempotentApp.stToken, idempotencyKey: 'reuse-me' };
    const before = await totalCount(idempotentApp.appId);
    expect((await invoke(HIKARI, JSON.stringify(SHORT), options)).status).toBe(200);
    const reused = await invoke(HIKARI, JSON.stringify({ lyrics: ['ほしぞら'] }), options);
    expect({ status: reused.status, code: reused.body.error_code }).toEqual({ status: 409, code: '409100' });
    expectErrorShape(reused);
    expect(await totalCount(idempotentApp.appId)).toBe(before + 1);
  });

  it('runs and meters concurrent duplicates once; the others get 409101 with Retry-After or the replay', async () => {
    const before = await totalCount(idempotentApp.appId);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        invoke(HIKARI, JSON.stringify(SHORT), { token: idempotentApp.stToken, idempotencyKey: 'burst' }),
      ),
    );
    const successes = results.filter((result) => result.status === 200);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    expect(successes.filter((result) => result.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const result of successes)
      expect(JSON.stringify(result.body)).toBe(JSON.stringify(successes[0]?.body));
    for (const result of results.filter((r) => r.status !== 200)) {
      expect({ status: result.status, code: result.body.error_code }).toEqual({
        status: 409,
        code: '409101',
      });
      expect(Number(result.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expectErrorShape(result);
    }
    expect(await totalCount(idempotentApp.appId)).toBe(before + 1);
  });

  it('rejects a malformed Idempotency-Key with 400107 and meters nothing', async () => {
    const before = await totalCount(idempotentApp.appId);
    for (const key of ['k'.repeat(256), 'clé', 'tab\there']) {
      const result = await invoke(HIKARI, JSON.stringify(SHORT), {
        token: idempotentApp.stToken,
        idempotencyKey: key,
      });
      expect({ status: result.status, code: result.body.error_code }).toEqual({
        status: 400,
        code: '400107',
      });
      expect(String(result.body.message)).toContain('printable ASCII');
      expectErrorShape(result);
    }
    expect(await totalCount(idempotentApp.appId)).toBe(before);
  });
});
