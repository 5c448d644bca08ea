/**
 * The rate limit as wired by `apiHandler({rateLimited: true})`: after authentication, before the
 * body parser and the operation; 429 with `Retry-After` and the documented error body.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandler } from '../../functions/http/middleware';
import { windowOf } from '../../lib/metering/rate-limit';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { keys } from '../../lib/storage/table-definition';
import { apiEvent, expectErrorShape, lambdaContext, parseResult } from '../support/api-events';
import { createTestApp, type TestApp } from '../support/test-apps';

const ROUTE = 'POST /v1/engines/{engine_id}';
const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
const LIMIT = 3;
/** Every request of this file arrives 30 s into one fixed minute, so no run straddles two windows. */
const ARRIVAL = new Date('2030-01-01T00:00:30.000Z');

let handler: ApiHandler;
let operationCalls = 0;
const previousLimit = process.env.RATE_LIMIT_PER_MINUTE;

afterAll(() => {
  if (previousLimit === undefined) delete process.env.RATE_LIMIT_PER_MINUTE;
  else process.env.RATE_LIMIT_PER_MINUTE = previousLimit;
});

beforeAll(async () => {
  // The service context reads the environment on first use, so set it before the first call.
  process.env.RATE_LIMIT_PER_MINUTE = String(LIMIT);
  const { apiHandler } = await import('../../functions/http/api-handler');
  const { jsonResponse } = await import('../../functions/http/json-response');
  handler = apiHandler({ routeKey: ROUTE, jsonBody: true, rateLimited: true }, async (_event, { tid }) => {
    operationCalls += 1;
    return jsonResponse({ ok: true }, tid);
  });
});

function event(token: string | undefined, body = '{"lyrics": ["la"]}'): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const base = apiEvent({
    routeKey: ROUTE,
    path: `/v1/engines/${HIKARI}`,
    pathParameters: { engine_id: HIKARI },
    headers,
    body,
  });
  return { ...base, requestContext: { ...base.requestContext, timeEpoch: ARRIVAL.getTime() } };
}

async function call(token: string | undefined, body?: string) {
  return parseResult(await handler(event(token, body), lambdaContext()));
}

async function windowCount(appId: string): Promise<unknown> {
  const result = await createDocumentClient().send(
    new GetCommand({
      TableName: process.env.TABLE_NAME ?? '',
      Key: keys.rateLimitWindow(appId, windowOf(ARRIVAL).key),
      ConsistentRead: true,
    }),
  );
  return result.Item?.count;
}

describe('rate-limited operation', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  it('serves the limit, then answers 429 rate_limited with Retry-After to the end of the minute', async () => {
    const before = operationCalls;
    for (let i = 0; i < LIMIT; i += 1) expect((await call(app.stToken)).status).toBe(200);
    const limited = await call(app.jwt);
    expect(limited.status).toBe(429);
    expectErrorShape(limited);
    expect(limited.headers['retry-after']).toBe('30');
    expect(limited.body).toMatchObject({
      error_code: '429100',
      error: 'rate_limited',
      error_level: 'normal',
      error_category: 'client',
      data: { limit_per_minute: LIMIT, retry_after_seconds: 30 },
    });
    expect(String(limited.body.message)).toContain(`${LIMIT} Engine.Invoke requests per minute`);
    // The refused request reached neither the operation nor the counter.
    expect(operationCalls - before).toBe(LIMIT);
    expect(await call(app.stToken)).toMatchObject({ status: 429 });
    expect(await windowCount(app.appId)).toBe(LIMIT);
  });

  it('counts authenticated attempts only: 401s do not count, a 400 body does', async () => {
    const fresh = await createTestApp();
    expect((await call(undefined)).status).toBe(401);
    expect((await call(`${fresh.jwt.slice(0, -4)}AAAA`)).status).toBe(401);
    expect(await windowCount(fresh.appId)).toBeUndefined();

    const badBody = await call(fresh.stToken, '{"lyrics": [');
    expect(badBody.status).toBe(400);
    expect(await windowCount(fresh.appId)).toBe(1);
    expect((await call(fresh.stToken)).status).toBe(200);
    expect((await call(fresh.stToken)).status).toBe(200);
    expect((await call(fresh.stToken)).status).toBe(429);
  });

  it("limits each app on its own: one app's 429s leave another app's budget whole", async () => {
    const other = await createTestApp();
    for (let i = 0; i < LIMIT; i += 1) expect((await call(other.jwt)).status).toBe(200);
    expect((await call(other.jwt)).status).toBe(429);
  });
});
