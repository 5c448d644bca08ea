/**
 * An engine that throws while rendering: the caller gets 500 `engine_failure` with the `tid` and
 * a generic message (never the exception's text or stack), and nothing is metered.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiHandler } from '../../functions/http/api-handler';
import { jsonResponse } from '../../functions/http/json-response';
import type { ApiHandler } from '../../functions/http/middleware';
import { serviceContext } from '../../functions/http/service-context';
import { EngineCatalog } from '../../lib/engines/catalog';
import type { Engine } from '../../lib/engines/engine';
import { invokeEngine } from '../../lib/engines/invoke-engine';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { UsageStore } from '../../lib/storage/usage-store';
import { apiEvent, expectErrorShape, lambdaContext, parseResult } from '../support/api-events';
import { createTestApp, type TestApp } from '../support/test-apps';

const ROUTE = 'POST /v1/engines/{engine_id}';
const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
const SECRET_DETAIL = 'formant table /opt/engine/internal.bin is corrupt';

/** The real catalog, whose engines validate input as usual and then break while rendering. */
class BreakingCatalog extends EngineCatalog {
  override get(engineId: string): ReturnType<EngineCatalog['get']> {
    const { entry, engine } = super.get(engineId);
    const breaking: Engine = {
      kind: engine.kind,
      requestSchema: engine.requestSchema,
      run: async () => {
        throw new TypeError(SECRET_DETAIL);
      },
    };
    return { entry, engine: breaking };
  }
}

/** The invoke handler's own wiring (functions/invoke-engine.ts) around the breaking catalog. */
const handler: ApiHandler = apiHandler(
  { routeKey: ROUTE, jsonBody: true },
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
      { ...serviceContext(), catalog: new BreakingCatalog() },
    );
    return jsonResponse(response, tid);
  },
);

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});

describe('engine failure', () => {
  it('answers 500 engine_failure with the tid and no exception text or stack, and meters nothing', async () => {
    const event = apiEvent({
      routeKey: ROUTE,
      path: `/v1/engines/${HIKARI}`,
      pathParameters: { engine_id: HIKARI },
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.stToken}` },
      body: JSON.stringify({ lyrics: ['something like you'] }),
    });
    const raw = await handler(event, lambdaContext());
    const result = parseResult(raw);
    expect(result.status).toBe(500);
    expectErrorShape(result);
    expect(result.body).toMatchObject({
      error_code: '500101',
      error: 'engine_failure',
      error_level: 'critical',
      error_category: 'process',
      message: 'The engine failed while rendering; nothing was metered.',
      data: { tid: event.requestContext.requestId },
    });
    expect(Object.keys(result.body.data as object)).toEqual(['tid']);
    const text = JSON.stringify(raw);
    for (const leak of [SECRET_DETAIL, 'TypeError', 'stack', '    at ', '.ts:'])
      expect(text).not.toContain(leak);

    const today = new Date().toISOString().slice(0, 10);
    const usage = new UsageStore({ client: createDocumentClient(), tableName: process.env.TABLE_NAME ?? '' });
    expect(await usage.listAggregates(app.appId, { start: today, end: today })).toEqual([]);
    const executions = await createDocumentClient().send(
      new ScanCommand({
        TableName: process.env.TABLE_NAME ?? '',
        FilterExpression: '#type = :execution',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':execution': 'execution' },
      }),
    );
    expect(executions.Items ?? []).toEqual([]);
  });

  it('still answers 4xx, not 500, for input the engine refuses before rendering', async () => {
    const event = apiEvent({
      routeKey: ROUTE,
      path: `/v1/engines/${HIKARI}`,
      pathParameters: { engine_id: HIKARI },
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.stToken}` },
      body: JSON.stringify({ lyric: ['typo'] }),
    });
    const result = parseResult(await handler(event, lambdaContext()));
    expect({ status: result.status, code: result.body.error_code }).toEqual({ status: 400, code: '400102' });
  });
});
