/**
 * The exported handlers with DynamoDB unreachable, slow or throttled: a fault proxy sits between
 * the handlers (`AWS_ENDPOINT_URL_DYNAMODB`) and DynamoDB Local. Each fault must give 503 with
 * `Retry-After` and the error body, write nothing, and return no unmetered result; once the proxy
 * passes again, the report must equal the sum of what clients received.
 *
 * The test reads and seeds the table directly (not through the proxy).
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, type TestContext } from 'vitest';
import type { ApiHandler } from '../../functions/http/middleware';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient, DYNAMODB_MAX_ATTEMPTS } from '../../lib/storage/dynamodb-client';
import { keys } from '../../lib/storage/table-definition';
import { UsageStore } from '../../lib/storage/usage-store';
import {
  apiEvent,
  expectErrorShape,
  lambdaContext,
  type ParsedResult,
  parseResult,
} from '../support/api-events';
import { type FaultMode, FaultProxy } from '../support/fault-proxy';
import { createTestApp, type TestApp } from '../support/test-apps';

const INVOKE_ROUTE = 'POST /v1/engines/{engine_id}';
const LIST_ROUTE = 'GET /v1/apps/{app_id}/usages';
const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
const LEO = '5A22C6DFE641404096876E9928EA1294.leo';
/** Per-attempt DynamoDB time-out of the handlers under test, in ms. */
const TIMEOUT_MS = 1000;
/** Longer than the client waits for any attempt. */
const HOLD_MS = 60_000;
const tableName = process.env.TABLE_NAME ?? '';
const direct = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
const directUsage = new UsageStore({ client: direct, tableName });

let proxy: FaultProxy;
let invokeHandler: ApiHandler;
let listHandler: ApiHandler;
let rateLimitedInvokeHandler: ApiHandler;

/** Status, `Retry-After` and duration of each call made in the current {@link under} block. */
const calls: string[] = [];

/** What one app's clients received: one entry per 200. */
const received = new Map<string, { uuid: string; engineId: string; total: number }[]>();

/** `503 Retry-After 1 in 212 ms` */
function describeCall(result: ParsedResult, ms: number): string {
  const retryAfter = result.headers['retry-after'];
  return `${result.status}${retryAfter === undefined ? '' : ` Retry-After ${retryAfter}`} in ${Math.round(ms)} ms`;
}

function bodyFor(engineId: string): string {
  return JSON.stringify(
    engineId === HIKARI ? { lyrics: ['something like you'] } : { lyrics: ['twinkle twinkle', 'little star'] },
  );
}

function invokeEvent(token: string, engineId: string): APIGatewayProxyEventV2 {
  return apiEvent({
    routeKey: INVOKE_ROUTE,
    path: `/v1/engines/${engineId}`,
    pathParameters: { engine_id: engineId },
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: bodyFor(engineId),
  });
}

/** Calls Engine.Invoke and books every 200 under the app; returns the result and its duration in ms. */
async function invoke(
  app: TestApp,
  options: { engineId?: string; token?: string; handler?: ApiHandler } = {},
): Promise<ParsedResult & { ms: number }> {
  const engineId = options.engineId ?? HIKARI;
  const started = performance.now();
  const result = parseResult(
    await (options.handler ?? invokeHandler)(
      invokeEvent(options.token ?? app.stToken, engineId),
      lambdaContext(),
    ),
  );
  const ms = performance.now() - started;
  calls.push(`Engine.Invoke ${describeCall(result, ms)}`);
  if (result.status === 200) {
    const body = result.body as { result: { uuid: string }; usage: { energy: { total: number } } };
    const list = received.get(app.appId) ?? [];
    list.push({ uuid: body.result.uuid, engineId, total: body.usage.energy.total });
    received.set(app.appId, list);
  }
  return { ...result, ms };
}

async function report(app: TestApp): Promise<ParsedResult> {
  const today = new Date().toISOString().slice(0, 10);
  const event = apiEvent({
    routeKey: LIST_ROUTE,
    path: `/v1/apps/${app.appId}/usages`,
    pathParameters: { app_id: app.appId },
    query: { start: today, end: today, detail: 'true' },
    headers: { authorization: `Bearer ${app.stToken}` },
  });
  const started = performance.now();
  const result = parseResult(await listHandler(event, lambdaContext()));
  calls.push(`Usages.List ${describeCall(result, performance.now() - started)}`);
  return result;
}

/** The table as it is, read directly: the app's execution records and its aggregates. */
async function stored(app: TestApp): Promise<{ executions: number; count: number; total: number }> {
  const scan = await direct.send(
    new ScanCommand({
      TableName: tableName,
      ConsistentRead: true,
      FilterExpression: '#type = :execution AND #app = :app',
      ExpressionAttributeNames: { '#type': 'type', '#app': 'app_id' },
      ExpressionAttributeValues: { ':execution': 'execution', ':app': app.appId },
    }),
  );
  const today = new Date().toISOString().slice(0, 10);
  const rows = await directUsage.listAggregates(app.appId, { start: today, end: today });
  return {
    executions: scan.Items?.length ?? 0,
    count: rows.reduce((sum, row) => sum + row.count, 0),
    total: rows.reduce((sum, row) => sum + row.request + row.response + row.service, 0),
  };
}

/** What the table must hold for the app: exactly what its clients received. */
function expected(app: TestApp): { executions: number; count: number; total: number } {
  const list = received.get(app.appId) ?? [];
  const total = list.reduce((sum, entry) => sum + entry.total, 0);
  return { executions: list.length, count: list.length, total };
}

function expectUnavailable(result: ParsedResult): void {
  expect(result.status).toBe(503);
  expectErrorShape(result);
  expect(result.headers['retry-after']).toBe('1');
  expect(result.body).toMatchObject({ error_code: '503100', error: 'storage_unavailable' });
  expect(result.body).not.toHaveProperty('result');
}

/**
 * Runs `act` under `mode`, then switches the proxy back to pass-through, and annotates the test
 * with the fault, the answers (status, `Retry-After`, time) and what the proxy did.
 */
async function under<T>(
  mode: FaultMode,
  annotate: TestContext['annotate'],
  act: () => Promise<T>,
): Promise<T> {
  proxy.setMode(mode);
  proxy.resetCounts();
  calls.length = 0;
  try {
    return await act();
  } finally {
    proxy.setMode({ kind: 'pass' });
    await annotate(`${JSON.stringify(mode)} → ${calls.join('; ')}; proxy: ${proxy.summary()}`, 'fault');
  }
}

/** A new app whose credentials no running container has cached yet. */
async function freshApp(): Promise<TestApp> {
  return createTestApp(new CredentialStore({ client: direct, tableName }));
}

let app: TestApp;

/** Environment this file changes, with the values to restore afterwards. */
const savedEnv = {
  AWS_ENDPOINT_URL_DYNAMODB: process.env.AWS_ENDPOINT_URL_DYNAMODB,
  DYNAMODB_TIMEOUT_MS: process.env.DYNAMODB_TIMEOUT_MS,
  RATE_LIMIT_PER_MINUTE: process.env.RATE_LIMIT_PER_MINUTE,
};

beforeAll(async () => {
  proxy = await FaultProxy.start(inject('dynamoEndpoint'));
  // The handlers read these on first use, as a Lambda container does at its first request.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = proxy.endpoint;
  process.env.DYNAMODB_TIMEOUT_MS = String(TIMEOUT_MS);
  process.env.RATE_LIMIT_PER_MINUTE = '1000';
  ({ handler: invokeHandler } = await import('../../functions/invoke-engine'));
  ({ handler: listHandler } = await import('../../functions/list-usages'));
  rateLimitedInvokeHandler = await rateLimitedInvoke();
  app = await freshApp();
  // Warm up: engines built, credential cached, connections open.
  expect((await invoke(app)).status).toBe(200);
  expect((await invoke(app, { engineId: LEO })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await proxy.close();
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Engine.Invoke as functions/invoke-engine.ts builds it, plus `rateLimited: true`. */
async function rateLimitedInvoke(): Promise<ApiHandler> {
  const { apiHandler } = await import('../../functions/http/api-handler');
  const { jsonResponse } = await import('../../functions/http/json-response');
  const { serviceContext } = await import('../../functions/http/service-context');
  const { invokeEngine } = await import('../../lib/engines/invoke-engine');
  const { EngineCatalog } = await import('../../lib/engines/catalog');
  const catalog = new EngineCatalog();
  return apiHandler(
    { routeKey: INVOKE_ROUTE, jsonBody: true, rateLimited: true },
    async (event, { tid, receivedAt, principal }) => {
      const { response } = await invokeEngine(
        {
          engineId: event.pathParameters?.engine_id ?? '',
          body: event.body,
          appId: principal.appId,
          tid,
          receivedAt,
          showRefs: false,
        },
        { ...serviceContext(), catalog },
      );
      return jsonResponse(response, tid);
    },
  );
}

describe('DynamoDB unreachable', () => {
  it('fails the metering write with 503 and Retry-After, and writes nothing', async ({ annotate }) => {
    const before = await stored(app);
    const result = await under({ kind: 'unreachable' }, annotate, () => invoke(app));
    expectUnavailable(result);
    expect(proxy.count('forwarded')).toBe(0);
    expect(await stored(app)).toEqual(before);
    expect(before).toEqual(expected(app));
  });

  it('fails authentication of an uncached credential with 503, not 401, for ST and JWT alike', async ({
    annotate,
  }) => {
    const fresh = await freshApp();
    await under({ kind: 'unreachable' }, annotate, async () => {
      expectUnavailable(await invoke(fresh, { token: fresh.stToken }));
      expectUnavailable(await invoke(fresh, { token: fresh.jwt }));
      expectUnavailable(await report(fresh));
    });
    expect(await stored(fresh)).toEqual({ executions: 0, count: 0, total: 0 });
  });
});

describe('DynamoDB slow (beyond the client time-out)', () => {
  it(`gives up after ${DYNAMODB_MAX_ATTEMPTS} attempts of ${TIMEOUT_MS} ms with 503, and the held write never lands`, async ({
    annotate,
  }) => {
    const before = await stored(app);
    const slowWrite: FaultMode = { kind: 'slow', delayMs: HOLD_MS, operations: ['TransactWriteItems'] };
    const result = await under(slowWrite, annotate, async () => {
      const abandoned = proxy.waitFor('abandoned', {
        operation: 'TransactWriteItems',
        times: DYNAMODB_MAX_ATTEMPTS,
      });
      const outcome = await invoke(app);
      await abandoned;
      return outcome;
    });
    expectUnavailable(result);
    expect(result.ms).toBeGreaterThanOrEqual(DYNAMODB_MAX_ATTEMPTS * TIMEOUT_MS);
    // The attempts plus the SDK's back-off, far below the 28 s Lambda time-out.
    expect(result.ms).toBeLessThan(DYNAMODB_MAX_ATTEMPTS * TIMEOUT_MS + 3000);
    expect(await stored(app)).toEqual(before);
  });

  it('fails a slow credential read with 503 within the same bound', async ({ annotate }) => {
    const fresh = await freshApp();
    const slowRead: FaultMode = { kind: 'slow', delayMs: HOLD_MS, operations: ['GetItem'] };
    const result = await under(slowRead, annotate, async () => {
      const abandoned = proxy.waitFor('abandoned', { operation: 'GetItem', times: DYNAMODB_MAX_ATTEMPTS });
      const outcome = await invoke(fresh, { token: fresh.jwt });
      await abandoned;
      return outcome;
    });
    expectUnavailable(result);
    expect(result.ms).toBeGreaterThanOrEqual(DYNAMODB_MAX_ATTEMPTS * TIMEOUT_MS);
    expect(result.ms).toBeLessThan(DYNAMODB_MAX_ATTEMPTS * TIMEOUT_MS + 3000);
    expect(await stored(fresh)).toEqual({ executions: 0, count: 0, total: 0 });
  });
});

describe('DynamoDB throttling', () => {
  it('answers 503 when every attempt of the metering write is throttled, and writes nothing', async ({
    annotate,
  }) => {
    const before = await stored(app);
    const result = await under({ kind: 'throttle', operations: ['TransactWriteItems'] }, annotate, () =>
      invoke(app, { engineId: LEO }),
    );
    expectUnavailable(result);
    expect(proxy.count('throttled', 'TransactWriteItems')).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect(await stored(app)).toEqual(before);
  });

  it('lets the credential read pass while the write is throttled: the failure is still a 503', async ({
    annotate,
  }) => {
    const fresh = await freshApp();
    const result = await under({ kind: 'throttle', operations: ['TransactWriteItems'] }, annotate, () =>
      invoke(fresh, { token: fresh.jwt }),
    );
    expectUnavailable(result);
    expect(proxy.count('forwarded', 'GetItem')).toBeGreaterThanOrEqual(1);
    expect(await stored(fresh)).toEqual({ executions: 0, count: 0, total: 0 });
  });

  it('absorbs a short burst of throttling with the SDK retries and meters the result once', async ({
    annotate,
  }) => {
    const before = await stored(app);
    const result = await under(
      { kind: 'throttle', operations: ['TransactWriteItems'], times: DYNAMODB_MAX_ATTEMPTS - 1 },
      annotate,
      () => invoke(app),
    );
    expect(result.status).toBe(200);
    expect(proxy.count('throttled', 'TransactWriteItems')).toBe(DYNAMODB_MAX_ATTEMPTS - 1);
    const after = await stored(app);
    expect(after.executions - before.executions).toBe(1);
    expect(after.count - before.count).toBe(1);
  });

  it('fails auth with 503 when reads are throttled', async ({ annotate }) => {
    const fresh = await freshApp();
    const result = await under({ kind: 'throttle' }, annotate, () => invoke(fresh));
    expectUnavailable(result);
    expect(proxy.count('throttled', 'GetItem')).toBe(DYNAMODB_MAX_ATTEMPTS);
  });
});

describe('rate limiter faults (fail closed)', () => {
  it('refuses with 503 before running the engine when the window counter is throttled', async ({
    annotate,
  }) => {
    const before = await stored(app);
    const result = await under({ kind: 'throttle', operations: ['UpdateItem'] }, annotate, () =>
      invoke(app, { handler: rateLimitedInvokeHandler }),
    );
    expectUnavailable(result);
    expect(proxy.count('throttled', 'UpdateItem')).toBe(DYNAMODB_MAX_ATTEMPTS);
    // The request stopped at the limiter: no metering write was even attempted.
    expect(proxy.count('forwarded', 'TransactWriteItems')).toBe(0);
    expect(await stored(app)).toEqual(before);
  });

  it('refuses with 503 when DynamoDB is unreachable', async ({ annotate }) => {
    const result = await under({ kind: 'unreachable' }, annotate, () =>
      invoke(app, { handler: rateLimitedInvokeHandler }),
    );
    expectUnavailable(result);
  });

  it('admits and meters normally once DynamoDB is back', async () => {
    const result = await invoke(app, { handler: rateLimitedInvokeHandler, engineId: LEO });
    expect(result.status).toBe(200);
  });
});

describe('a write that lands but whose answer is lost (the ambiguous time-out)', () => {
  it('is never counted twice: the SDK retries the same transaction token and the execution uuid is unique', async ({
    annotate,
  }) => {
    const before = await stored(app);
    const result = await under(
      { kind: 'slow', stage: 'response', delayMs: HOLD_MS, operations: ['TransactWriteItems'], times: 1 },
      annotate,
      () => invoke(app),
    );
    const after = await stored(app);
    // The first attempt was applied and its answer lost; the retry finds the transaction done.
    expect(proxy.count('responseAbandoned', 'TransactWriteItems')).toBe(1);
    expect(after.executions - before.executions).toBe(1);
    expect(after.count - before.count).toBe(1);
    expect(result.status).toBe(200);
  });
});

describe('a write that lands while every answer to it is lost', () => {
  it('delivers the metered result: a consistent read of the execution record settles the ambiguity', async ({
    annotate,
  }) => {
    const before = await stored(app);
    const result = await under(
      { kind: 'slow', stage: 'response', delayMs: HOLD_MS, operations: ['TransactWriteItems'] },
      annotate,
      () => invoke(app),
    );
    const after = await stored(app);
    expect(proxy.count('responseAbandoned', 'TransactWriteItems')).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect(after.executions - before.executions).toBe(1);
    expect(after.count - before.count).toBe(1);
    expect(result.status).toBe(200);
  });
});

describe('after recovery', () => {
  it('reports, per app, exactly the sum and count of what clients received, and every result is metered', async () => {
    const apps = [app, await freshApp()];
    for (const each of apps) {
      expect((await invoke(each, { engineId: HIKARI })).status).toBe(200);
      expect((await invoke(each, { engineId: LEO, token: each.jwt })).status).toBe(200);
    }
    for (const each of apps) {
      const result = await report(each);
      expect(result.status).toBe(200);
      const want = expected(each);
      expect((result.body.usage as { total: number }).total).toBe(want.total);
      const rows = result.body.usage_list as { engine_id: string; count: number }[];
      expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(want.count);
      expect(await stored(each)).toEqual(want);
      for (const { uuid } of received.get(each.appId) ?? []) {
        const item = await direct.send(
          new GetCommand({ TableName: tableName, Key: keys.execution(uuid), ConsistentRead: true }),
        );
        expect(item.Item?.app_id).toBe(each.appId);
      }
    }
  });
});
