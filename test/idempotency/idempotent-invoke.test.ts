/**
 * Engine.Invoke with an Idempotency-Key, at the domain level: real DynamoDB Local and a real
 * result directory, an injected engine that counts its runs, and an injected clock.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { type CatalogEntry, EngineCatalog } from '../../lib/engines/catalog';
import type { Engine, EngineOutput, EngineRunContext } from '../../lib/engines/engine';
import {
  type InvokeDependencies,
  type InvokeOutcome,
  type InvokeRequest,
  invokeEngine,
} from '../../lib/engines/invoke-engine';
import { ServiceError, StorageUnavailableError, ValidationError } from '../../lib/errors';
import type { IdempotencyDependencies } from '../../lib/idempotency/idempotency-guard';
import { hashIdempotencyKey } from '../../lib/idempotency/idempotency-key';
import { requestFingerprint } from '../../lib/idempotency/request-fingerprint';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { IdempotencyStore } from '../../lib/storage/idempotency-store';
import { LocalDirectoryResultStore } from '../../lib/storage/result-store/local-directory-result-store';
import type { ResultStore } from '../../lib/storage/result-store/result-store';
import { keys } from '../../lib/storage/table-definition';
import { UsageStore } from '../../lib/storage/usage-store';

const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
const DAY = '2026-03-01';
const RECEIVED_AT = new Date(`${DAY}T10:00:00Z`);
const tableName = process.env.TABLE_NAME ?? '';
const client = createDocumentClient();
const usageStore = new UsageStore({ client, tableName });
const idempotencyStore = new IdempotencyStore({ client, tableName });
const resultDir = mkdtempSync(join(tmpdir(), 'idempotent-invoke-'));
const resultStore = new LocalDirectoryResultStore({ directory: resultDir });
const unreachableClient = createDocumentClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });

afterAll(() => rmSync(resultDir, { recursive: true, force: true }));

function catalogEntry(): CatalogEntry {
  const entry = new EngineCatalog().list().find((row) => row.engineId === HIKARI);
  if (entry === undefined) throw new Error('hikari is missing from the catalog');
  return entry;
}

/** An engine that returns `payloadBytes` of result, 7.5 s of "audio" (7 energy), and counts its runs. */
class CountingEngine implements Engine {
  readonly kind = 'test';
  readonly requestSchema = {
    type: 'object',
    properties: { lyrics: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    required: ['lyrics'],
    additionalProperties: false,
  };
  runs = 0;
  /** Runs inside the next `run`, before it returns (then cleared). */
  duringNextRun: (() => Promise<void>) | undefined;
  failNextRun: Error | undefined;

  constructor(readonly payloadBytes = 100) {}

  async run(input: Readonly<Record<string, unknown>>, context: EngineRunContext): Promise<EngineOutput> {
    this.runs += 1;
    const during = this.duringNextRun;
    this.duringNextRun = undefined;
    if (during !== undefined) await during();
    const failure = this.failNextRun;
    this.failNextRun = undefined;
    if (failure !== undefined) throw failure;
    return {
      result: {
        code: '0000',
        uuid: context.uuid,
        lyrics: input.lyrics,
        payload: 'x'.repeat(this.payloadBytes),
      },
      refs: { stage_ms: { render: 1 } },
      measures: { durationSeconds: 7.5 },
    };
  }
}

/** A clock in ms that only moves when told. */
class ManualClock {
  ms = Date.parse('2026-03-01T10:00:00Z');
  readonly now = (): number => this.ms;
  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

interface Harness {
  readonly engine: CountingEngine;
  readonly clock: ManualClock;
  readonly appId: string;
  deps(overrides?: {
    usageStore?: UsageStore;
    idempotency?: Partial<IdempotencyDependencies>;
  }): InvokeDependencies;
  call(overrides?: Partial<InvokeRequest>, deps?: InvokeDependencies): Promise<InvokeOutcome>;
  meteredCount(appId?: string): Promise<number>;
  rawItem(key?: string): Promise<Record<string, unknown> | undefined>;
}

function harness(
  options: { payloadBytes?: number; inlineLimitBytes?: number; ttlSeconds?: number } = {},
): Harness {
  const engine = new CountingEngine(options.payloadBytes);
  const entry = catalogEntry();
  const clock = new ManualClock();
  const appId = randomUUID().replaceAll('-', '').toUpperCase();
  const deps = (overrides: Parameters<Harness['deps']>[0] = {}): InvokeDependencies => ({
    catalog: { get: () => ({ entry, engine }) },
    usageStore: overrides.usageStore ?? usageStore,
    config: { usageTimeZone: 'UTC', executionRetentionDays: 1 },
    idempotency: {
      store: idempotencyStore,
      resultStore,
      ttlSeconds: options.ttlSeconds ?? 86_400,
      inlineLimitBytes: options.inlineLimitBytes,
      clock: clock.now,
      ...overrides.idempotency,
    },
  });
  return {
    engine,
    clock,
    appId,
    deps,
    call: (overrides = {}, given = deps()) =>
      invokeEngine(
        {
          engineId: HIKARI,
          body: { lyrics: ['la la la'] },
          appId,
          tid: randomUUID(),
          receivedAt: RECEIVED_AT,
          showRefs: false,
          idempotencyKey: 'order-42',
          ...overrides,
        },
        given,
      ),
    meteredCount: async (forApp = appId) => {
      const rows = await usageStore.listAggregates(forApp, { start: DAY, end: DAY });
      return rows.reduce((sum, row) => sum + row.count, 0);
    },
    rawItem: async (key = 'order-42') => {
      const output = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.idempotency(appId, hashIdempotencyKey(key)),
          ConsistentRead: true,
        }),
      );
      return output.Item;
    },
  };
}

function withCode(code: string): (error: unknown) => boolean {
  return (error) => error instanceof ServiceError && error.code === code;
}

async function executionExists(uuid: unknown): Promise<boolean> {
  if (typeof uuid !== 'string') return false;
  const output = await client.send(new GetCommand({ TableName: tableName, Key: keys.execution(uuid) }));
  return output.Item !== undefined;
}

describe('invokeEngine with an Idempotency-Key', () => {
  it('replays the first response byte for byte for a retry of the same request, and meters it once', async () => {
    const h = harness();
    const first = await h.call({ showRefs: true });
    // The same body with its keys in another order is the same request.
    const retry = await h.call({ showRefs: true, body: { lyrics: ['la la la'] } });

    expect(first.replayed).toBe(false);
    expect(retry.replayed).toBe(true);
    expect(JSON.stringify(retry.response)).toBe(JSON.stringify(first.response));
    expect(retry.response.usage.energy).toEqual({ request: 0, response: 7, service: 0, total: 7 });
    expect(h.engine.runs).toBe(1);
    expect(await h.meteredCount()).toBe(1);
    expect(await executionExists(first.response.result.uuid)).toBe(true);
    const item = await h.rawItem();
    expect(item).toMatchObject({
      status: 'COMPLETED',
      execution_uuid: first.response.result.uuid,
      response_body: JSON.stringify(first.response),
    });
    expect(JSON.stringify(item)).not.toContain('order-42');
  });

  it('refuses the key for a different body or show_refs with 409100, running and metering nothing', async () => {
    const h = harness();
    await h.call();
    await expect(h.call({ body: { lyrics: ['other words'] } })).rejects.toSatisfy(
      withCode('idempotencyKeyReused'),
    );
    await expect(h.call({ showRefs: true })).rejects.toSatisfy(withCode('idempotencyKeyReused'));
    expect(h.engine.runs).toBe(1);
    expect(await h.meteredCount()).toBe(1);
  });

  it('scopes keys per app: another app with the same key runs and is metered on its own', async () => {
    const h = harness();
    const otherApp = `${h.appId}B`;
    const mine = await h.call();
    const theirs = await h.call({ appId: otherApp });
    expect(theirs.replayed).toBe(false);
    expect(theirs.response.result.uuid).not.toBe(mine.response.result.uuid);
    expect(await h.meteredCount()).toBe(1);
    expect(await h.meteredCount(otherApp)).toBe(1);
  });

  it('runs the engine once for concurrent duplicates; the others get 409101 or the replay', async () => {
    const h = harness();
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => h.call()));
    const fresh = outcomes.filter((o) => o.status === 'fulfilled' && !o.value.replayed);
    expect(fresh).toHaveLength(1);
    const [winner] = fresh;
    if (winner?.status !== 'fulfilled') throw new Error('no fresh run');
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') {
        expect(JSON.stringify(outcome.value.response)).toBe(JSON.stringify(winner.value.response));
      } else {
        expect(outcome.reason).toSatisfy(withCode('requestInProgress'));
      }
    }
    expect(h.engine.runs).toBe(1);
    expect(await h.meteredCount()).toBe(1);
  });

  it('answers 409101 with the seconds left on the lock while a run holds the key', async () => {
    const h = harness();
    const waiting: ServiceError[] = [];
    h.engine.duringNextRun = async () => {
      h.clock.advanceSeconds(15);
      const duplicates = await Promise.allSettled(Array.from({ length: 4 }, () => h.call()));
      for (const duplicate of duplicates) {
        if (duplicate.status === 'rejected' && duplicate.reason instanceof ServiceError) {
          waiting.push(duplicate.reason);
        }
      }
    };
    const first = await h.call();
    expect(waiting.map((error) => [error.code, error.retryAfterSeconds])).toEqual(
      Array.from({ length: 4 }, () => ['requestInProgress', 45]),
    );
    expect((await h.call()).response).toEqual(first.response);
    expect(h.engine.runs).toBe(1);
    expect(await h.meteredCount()).toBe(1);
  });

  it('lets a retry take over the key of a crashed run once its lock has expired', async () => {
    const h = harness();
    // A run that took the lock and died without completing or releasing it.
    const seconds = Math.floor(h.clock.ms / 1000);
    await idempotencyStore.tryLock({
      appId: h.appId,
      keyHash: hashIdempotencyKey('order-42'),
      requestHash: requestFingerprint({ engineId: HIKARI, showRefs: false, body: { lyrics: ['la la la'] } }),
      lockToken: randomUUID(),
      now: seconds,
      lockExpiresAt: seconds + 60,
      expiresAt: seconds + 86_400,
    });

    h.clock.advanceSeconds(59);
    await expect(h.call()).rejects.toSatisfy(
      (error) =>
        withCode('requestInProgress')(error) &&
        error instanceof ServiceError &&
        error.retryAfterSeconds === 1,
    );
    h.clock.advanceSeconds(1);
    expect((await h.call()).replayed).toBe(false);
    expect(h.engine.runs).toBe(1);
    expect(await h.meteredCount()).toBe(1);
  });

  it('does not meter a run that lost its expired lock to another run; the key keeps the winner', async () => {
    const h = harness();
    let winner: InvokeOutcome | undefined;
    h.engine.duringNextRun = async () => {
      h.clock.advanceSeconds(61);
      winner = await h.call();
    };
    await expect(h.call()).rejects.toSatisfy(withCode('requestInProgress'));
    expect(winner?.replayed).toBe(false);
    expect(h.engine.runs).toBe(2);
    expect(await h.meteredCount()).toBe(1);
    const replay = await h.call();
    expect(replay.replayed).toBe(true);
    expect(replay.response.result.uuid).toBe(winner?.response.result.uuid);
  });

  it('keeps a response over the inline limit in the result store and replays it byte for byte', async () => {
    const h = harness({ payloadBytes: 50_000, inlineLimitBytes: 10_000 });
    const first = await h.call();
    const item = await h.rawItem();
    expect(item?.response_body).toBeUndefined();
    const pointer = `file:results/${h.appId}/${hashIdempotencyKey('order-42')}/${String(first.response.result.uuid)}.json`;
    expect(item?.result_pointer).toBe(pointer);
    expect((await resultStore.get(pointer)).toString('utf8')).toBe(JSON.stringify(first.response));

    const retry = await h.call();
    expect(retry.replayed).toBe(true);
    expect(JSON.stringify(retry.response)).toBe(JSON.stringify(first.response));
    expect(h.engine.runs).toBe(1);
    expect(await h.meteredCount()).toBe(1);
  });

  it('releases the key when the metering transaction fails (503), so the retry runs and is metered once', async () => {
    const h = harness();
    const broken = new UsageStore({ client: unreachableClient, tableName });
    await expect(h.call({}, h.deps({ usageStore: broken }))).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(await h.rawItem()).toMatchObject({ status: 'IN_PROGRESS', lock_expires_at: 0 });
    expect(await h.meteredCount()).toBe(0);

    const retry = await h.call();
    expect(retry.replayed).toBe(false);
    expect(h.engine.runs).toBe(2);
    expect(await h.meteredCount()).toBe(1);
  });

  it('releases the key when the result store cannot be written (503), metering nothing', async () => {
    const h = harness({ payloadBytes: 5_000, inlineLimitBytes: 1_000 });
    const notADirectory = join(resultDir, 'not-a-directory');
    writeFileSync(notADirectory, 'x');
    const unwritable: ResultStore = new LocalDirectoryResultStore({ directory: notADirectory });
    await expect(h.call({}, h.deps({ idempotency: { resultStore: unwritable } }))).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
    expect(await h.meteredCount()).toBe(0);
    expect((await h.call()).replayed).toBe(false);
    expect(await h.meteredCount()).toBe(1);
  });

  it('releases the key when the engine fails or refuses the input', async () => {
    const h = harness();
    h.engine.failNextRun = new Error('renderer crashed');
    await expect(h.call()).rejects.toSatisfy(withCode('engineFailure'));
    h.engine.failNextRun = new ValidationError('unsupportedLyrics', 'cannot sing this');
    await expect(h.call()).rejects.toSatisfy(withCode('unsupportedLyrics'));
    expect(await h.meteredCount()).toBe(0);

    expect((await h.call()).replayed).toBe(false);
    expect(h.engine.runs).toBe(3);
    expect(await h.meteredCount()).toBe(1);
  });

  it('rejects a bad body or key before taking the key', async () => {
    const h = harness();
    await expect(h.call({ body: { lyric: ['typo'] } })).rejects.toSatisfy(withCode('invalidEngineInput'));
    await expect(h.call({ idempotencyKey: 'k'.repeat(256) })).rejects.toSatisfy(
      withCode('invalidIdempotencyKey'),
    );
    expect(await h.rawItem()).toBeUndefined();
    expect(h.engine.runs).toBe(0);
    expect((await h.call()).replayed).toBe(false);
  });

  it('forgets a key after its TTL: the same key then starts a new run', async () => {
    const h = harness({ ttlSeconds: 600 });
    await h.call();
    h.clock.advanceSeconds(599);
    expect((await h.call()).replayed).toBe(true);
    h.clock.advanceSeconds(1);
    expect((await h.call({ body: { lyrics: ['new song'] } })).replayed).toBe(false);
    expect(await h.meteredCount()).toBe(2);
  });

  it('keeps the old behaviour without a key: every call runs and is metered', async () => {
    const h = harness();
    await h.call({ idempotencyKey: undefined });
    await h.call({ idempotencyKey: undefined });
    expect(h.engine.runs).toBe(2);
    expect(await h.meteredCount()).toBe(2);
    expect(await h.rawItem()).toBeUndefined();
  });

  it('treats a key without the idempotency wiring as an internal error, before running', async () => {
    const h = harness();
    const { idempotency: _missing, ...unwired } = h.deps();
    await expect(h.call({}, unwired)).rejects.toSatisfy(withCode('internalError'));
    expect(h.engine.runs).toBe(0);
  });
});
