import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/list-usages';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { keys } from '../../lib/storage/table-definition';
import { UsageStore } from '../../lib/storage/usage-store';
import { apiEvent, expectErrorShape, lambdaContext, parseResult } from '../support/api-events';
import { createTestApp, type TestApp } from '../support/test-apps';

const ROUTE = 'GET /v1/apps/{app_id}/usages';
/** A limit the tests below exceed: Usages.List must ignore it (only Engine.Invoke is rate-limited). */
const RATE_LIMIT_PER_MINUTE = 1;
const previousLimit = process.env.RATE_LIMIT_PER_MINUTE;
// Read by the service context on the handler's first call.
process.env.RATE_LIMIT_PER_MINUTE = String(RATE_LIMIT_PER_MINUTE);
afterAll(() => {
  if (previousLimit === undefined) delete process.env.RATE_LIMIT_PER_MINUTE;
  else process.env.RATE_LIMIT_PER_MINUTE = previousLimit;
});
const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
let app: TestApp;
let other: TestApp;

async function list(appId: string, query: Record<string, string>, token: string | undefined) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const event = apiEvent({
    routeKey: ROUTE,
    path: `/v1/apps/${appId}/usages`,
    pathParameters: { app_id: appId },
    query,
    headers,
  });
  return parseResult(await handler(event, lambdaContext()));
}

beforeAll(async () => {
  app = await createTestApp();
  other = await createTestApp();
  const store = new UsageStore({ client: createDocumentClient(), tableName: process.env.TABLE_NAME ?? '' });
  const record = (appId: string, usageDate: string, engineId: string, response: number) =>
    store.recordExecution({
      uuid: randomUUID(),
      appId,
      engineId,
      usageDate,
      receivedAt: new Date(`${usageDate}T12:00:00Z`),
      energy: { request: 0, response, service: 0 },
      tid: 'test',
      expiresAtUnix: 2_000_000_000,
    });
  await record(app.appId, '2024-06-27', HIKARI, 10);
  await record(app.appId, '2024-06-28', HIKARI, 23);
  await record(app.appId, '2024-06-28', HIKARI, 23);
  await record(app.appId, '2024-06-29', HIKARI, 99);
  await record(other.appId, '2024-06-28', HIKARI, 1000);
});

describe('Usages.List handler', () => {
  it('reports the range with end inclusive, grouped by date and engine, with a tid header', async () => {
    const result = await list(
      app.appId,
      { start: '2024-06-27', end: '2024-06-28', detail: 'true', date: '1' },
      app.stToken,
    );
    expect(result.status).toBe(200);
    expect(result.headers.tid).toMatch(/[0-9a-f-]{36}/);
    expect(result.body).toEqual({
      start: '2024-06-27',
      end: '2024-06-28',
      usage: { request: 0, response: 56, service: 0, total: 56 },
      usage_list: [
        { date: '2024-06-28', count: 2, engine_id: HIKARI, request: 0, response: 46, service: 0 },
        { date: '2024-06-27', count: 1, engine_id: HIKARI, request: 0, response: 10, service: 0 },
      ],
    });
  });

  it('accepts a JWT as well as an ST token', async () => {
    const result = await list(app.appId, { start: '2024-06-29', end: '2024-06-29' }, app.jwt);
    expect(result.status).toBe(200);
    expect(result.body.usage).toEqual({ request: 0, response: 99, service: 0, total: 99 });
    expect(result.body.usage_list).toEqual([]);
  });

  it('answers 401 with a challenge when the token is missing or tampered', async () => {
    const missing = await list(app.appId, { start: '2024-06-27', end: '2024-06-28' }, undefined);
    expect(missing.status).toBe(401);
    expectErrorShape(missing);
    expect(missing.body.error_code).toBe('401100');
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer realm=/);

    const [header, payload, signature] = app.jwt.split('.');
    const tampered = `${header}.${payload}x.${signature}`;
    const invalid = await list(app.appId, { start: '2024-06-27', end: '2024-06-28' }, tampered);
    expect(invalid.status).toBe(401);
    expectErrorShape(invalid);
    expect(invalid.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it("answers 403 for another app's usage", async () => {
    const result = await list(other.appId, { start: '2024-06-27', end: '2024-06-28' }, app.stToken);
    expect(result.status).toBe(403);
    expectErrorShape(result);
    expect(result.body.error).toBe('forbidden');
  });

  it('answers 400 naming the parameter for bad dates, ranges and flags', async () => {
    const badDate = await list(app.appId, { start: '2024-02-30', end: '2024-03-01' }, app.stToken);
    expect(badDate.status).toBe(400);
    expectErrorShape(badDate);
    expect(badDate.body.message).toContain('"start"');

    const reversed = await list(app.appId, { start: '2024-06-28', end: '2024-06-27' }, app.stToken);
    expect(reversed.body.error_code).toBe('400106');

    const flag = await list(
      app.appId,
      { start: '2024-06-27', end: '2024-06-28', detail: 'yes' },
      app.stToken,
    );
    expect(flag.status).toBe(400);
    expect(flag.body.message).toContain('"detail"');
  });

  it('answers unknown routes (the $default route) with the 404 error body', async () => {
    const event = apiEvent({ routeKey: '$default', path: '/v1/nothing' });
    const result = parseResult(await handler(event, lambdaContext()));
    expect(result.status).toBe(404);
    expectErrorShape(result);
    expect(result.body.error).toBe('route_not_found');
  });

  it('is not rate-limited and writes no rate-limit counter: the usage function stays read-only', async () => {
    const query = { start: '2024-06-27', end: '2024-06-28' };
    for (let i = 0; i < RATE_LIMIT_PER_MINUTE + 2; i += 1) {
      expect((await list(app.appId, query, app.stToken)).status).toBe(200);
    }
    const counters = await createDocumentClient().send(
      new QueryCommand({
        TableName: process.env.TABLE_NAME ?? '',
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':pk': keys.rateLimitWindow(app.appId, '').pk },
      }),
    );
    expect(counters.Items ?? []).toEqual([]);
  });
});
