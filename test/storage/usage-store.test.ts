import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ServiceError, StorageUnavailableError } from '../../lib/errors';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { type IdempotencyCompletion, IdempotencyStore } from '../../lib/storage/idempotency-store';
import { keys } from '../../lib/storage/table-definition';
import { type ExecutionRecord, UsageStore } from '../../lib/storage/usage-store';

const tableName = process.env.TABLE_NAME ?? '';
const client = createDocumentClient();
const store = new UsageStore({ client, tableName });
const ENGINE = '5A22C6DFE641404096876E9928EA1294.hikari';

function execution(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return {
    uuid: randomUUID(),
    appId: `APP${randomUUID().replaceAll('-', '').toUpperCase()}`,
    engineId: ENGINE,
    usageDate: '2024-06-28',
    receivedAt: new Date('2024-06-28T10:00:00Z'),
    energy: { request: 0, response: 23, service: 0 },
    tid: randomUUID(),
    expiresAtUnix: 1_750_000_000,
    ...overrides,
  };
}

/** Takes the idempotency lock of a fresh key for `record` and returns the completion its run would write. */
async function lockedKey(
  idempotency: IdempotencyStore,
  record: ExecutionRecord,
): Promise<IdempotencyCompletion> {
  const keyHash = randomUUID().replaceAll('-', '').repeat(2);
  const lockToken = randomUUID();
  const now = 1_700_000_000;
  await idempotency.tryLock({
    appId: record.appId,
    keyHash,
    requestHash: 'f'.repeat(64),
    lockToken,
    now,
    lockExpiresAt: now + 60,
    expiresAt: now + 86_400,
  });
  return {
    appId: record.appId,
    keyHash,
    lockToken,
    executionUuid: record.uuid,
    completedAt: new Date(now * 1000),
    response: { kind: 'inline', body: '{"result":{}}' },
    expiresAt: now + 86_400,
  };
}

describe('UsageStore', () => {
  it('writes the execution record with its TTL and adds to the day aggregate', async () => {
    const first = execution();
    await store.recordExecution(first);
    await store.recordExecution({
      ...first,
      uuid: randomUUID(),
      energy: { request: 1, response: 5, service: 2 },
    });

    const item = await client.send(new GetCommand({ TableName: tableName, Key: keys.execution(first.uuid) }));
    expect(item.Item).toMatchObject({ app_id: first.appId, response: 23, ttl: 1_750_000_000 });
    expect(await store.listAggregates(first.appId, { start: '2024-06-28', end: '2024-06-28' })).toEqual([
      { date: '2024-06-28', engineId: ENGINE, count: 2, request: 1, response: 28, service: 2 },
    ]);
  });

  it('refuses a second record with the same uuid and adds nothing', async () => {
    const record = execution();
    await store.recordExecution(record);
    await expect(store.recordExecution(record)).rejects.toSatisfy(
      (error) => error instanceof ServiceError && error.code === 'internalError',
    );
    const [aggregate] = await store.listAggregates(record.appId, { start: '2024-06-28', end: '2024-06-28' });
    expect(aggregate?.count).toBe(1);
    expect(aggregate?.response).toBe(23);
  });

  it('lists only the days of the range, both ends included, across pages', async () => {
    const appId = `APP${randomUUID().replaceAll('-', '').toUpperCase()}`;
    const days = ['2024-06-26', '2024-06-27', '2024-06-28', '2024-06-29'];
    for (const usageDate of days) {
      for (let engine = 0; engine < 3; engine += 1) {
        await store.recordExecution(
          execution({ appId, usageDate, engineId: `${ENGINE.split('.')[0]}.e${engine}` }),
        );
      }
    }
    const paged = new UsageStore({ client, tableName, pageSize: 2 });
    const listed = await paged.listAggregates(appId, { start: '2024-06-27', end: '2024-06-28' });
    expect(listed.map((row) => `${row.date} ${row.engineId.split('.')[1]}`)).toEqual([
      '2024-06-27 e0',
      '2024-06-27 e1',
      '2024-06-27 e2',
      '2024-06-28 e0',
      '2024-06-28 e1',
      '2024-06-28 e2',
    ]);
  });

  it('does not see other apps', async () => {
    const record = execution();
    await store.recordExecution(record);
    expect(
      await store.listAggregates(`${record.appId}X`, { start: '2024-06-01', end: '2024-06-30' }),
    ).toEqual([]);
  });

  it('completes a locked idempotency key in the same transaction as the metering', async () => {
    const record = execution();
    const idempotency = new IdempotencyStore({ client, tableName });
    const completion = await lockedKey(idempotency, record);
    await store.recordExecution(record, { idempotency: completion });

    expect(await idempotency.get(record.appId, completion.keyHash)).toEqual({
      status: 'COMPLETED',
      requestHash: 'f'.repeat(64),
      executionUuid: record.uuid,
      response: { kind: 'inline', body: '{"result":{}}' },
      expiresAt: 1_700_086_400,
    });
    const [aggregate] = await store.listAggregates(record.appId, { start: '2024-06-28', end: '2024-06-28' });
    expect(aggregate?.count).toBe(1);
  });

  it('meters nothing when the run no longer holds the idempotency lock', async () => {
    const record = execution();
    const idempotency = new IdempotencyStore({ client, tableName });
    const completion = await lockedKey(idempotency, record);
    await expect(
      store.recordExecution(record, { idempotency: { ...completion, lockToken: randomUUID() } }),
    ).rejects.toSatisfy((error) => error instanceof ServiceError && error.code === 'requestInProgress');

    const item = await client.send(
      new GetCommand({ TableName: tableName, Key: keys.execution(record.uuid) }),
    );
    expect(item.Item).toBeUndefined();
    expect(await store.listAggregates(record.appId, { start: '2024-06-28', end: '2024-06-28' })).toEqual([]);
    expect(await idempotency.get(record.appId, completion.keyHash)).toMatchObject({ status: 'IN_PROGRESS' });
  });

  it('reports an unreachable store as StorageUnavailableError', async () => {
    const unreachable = new UsageStore({
      client: createDocumentClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 }),
      tableName,
    });
    await expect(unreachable.recordExecution(execution())).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(
      unreachable.listAggregates('A', { start: '2024-06-01', end: '2024-06-02' }),
    ).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
