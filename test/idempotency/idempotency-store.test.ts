import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ServiceError, StorageUnavailableError } from '../../lib/errors';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { IdempotencyStore, type LockRequest } from '../../lib/storage/idempotency-store';
import { keys } from '../../lib/storage/table-definition';

const tableName = process.env.TABLE_NAME ?? '';
const client = createDocumentClient();
const store = new IdempotencyStore({ client, tableName });
const NOW = 1_780_000_000;

function lock(overrides: Partial<LockRequest> = {}): LockRequest {
  return {
    appId: randomUUID().replaceAll('-', ''),
    keyHash: 'a'.repeat(64),
    requestHash: 'b'.repeat(64),
    lockToken: randomUUID(),
    now: NOW,
    lockExpiresAt: NOW + 60,
    expiresAt: NOW + 86_400,
    ...overrides,
  };
}

async function rawItem(appId: string, keyHash: string) {
  const output = await client.send(
    new GetCommand({ TableName: tableName, Key: keys.idempotency(appId, keyHash), ConsistentRead: true }),
  );
  return output.Item;
}

describe('IdempotencyStore', () => {
  it('locks an unknown key once, with its request hash, lock and TTL, and no raw key', async () => {
    const first = lock();
    expect(await store.tryLock(first)).toBe('acquired');
    expect(await store.tryLock({ ...first, lockToken: randomUUID(), now: NOW + 59 })).toBe('held');
    expect(await store.get(first.appId, first.keyHash)).toEqual({
      status: 'IN_PROGRESS',
      requestHash: first.requestHash,
      lockToken: first.lockToken,
      lockExpiresAt: NOW + 60,
      expiresAt: NOW + 86_400,
    });
    expect(await rawItem(first.appId, first.keyHash)).toMatchObject({
      pk: `IDEMP#${first.appId}#${first.keyHash}`,
      sk: 'IDEMP',
      ttl: NOW + 86_400,
    });
  });

  it('scopes keys per app', async () => {
    const first = lock();
    expect(await store.tryLock(first)).toBe('acquired');
    expect(await store.tryLock({ ...first, appId: `${first.appId}b` })).toBe('acquired');
  });

  it('lets a lock be taken over once its time has passed, and an expired key be reused', async () => {
    const first = lock();
    await store.tryLock(first);
    const takeover = { ...first, lockToken: randomUUID(), now: NOW + 60, lockExpiresAt: NOW + 120 };
    expect(await store.tryLock(takeover)).toBe('acquired');
    expect(await store.get(first.appId, first.keyHash)).toMatchObject({ lockToken: takeover.lockToken });

    const short = lock({ expiresAt: NOW + 10, lockExpiresAt: NOW + 60 });
    await store.tryLock(short);
    expect(await store.tryLock({ ...short, lockToken: randomUUID(), now: NOW + 9 })).toBe('held');
    expect(await store.tryLock({ ...short, lockToken: randomUUID(), now: NOW + 10 })).toBe('acquired');
  });

  it('releases only its own lock, which makes the key free at once', async () => {
    const first = lock();
    await store.tryLock(first);
    expect(await store.release(first.appId, first.keyHash, randomUUID())).toBe(false);
    expect(await store.tryLock({ ...first, lockToken: randomUUID() })).toBe('held');
    expect(await store.release(first.appId, first.keyHash, first.lockToken)).toBe(true);
    expect(await store.get(first.appId, first.keyHash)).toMatchObject({ lockExpiresAt: 0 });
    expect(await store.tryLock({ ...first, lockToken: randomUUID() })).toBe('acquired');
  });

  it('reports a missing key as undefined and a malformed item as an internal error', async () => {
    expect(await store.get('nobody', 'c'.repeat(64))).toBeUndefined();
    const appId = randomUUID();
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.idempotency(appId, 'd'.repeat(64)),
          status: 'COMPLETED',
          request_hash: 'x',
          ttl: NOW,
        },
      }),
    );
    await expect(store.get(appId, 'd'.repeat(64))).rejects.toSatisfy(
      (error) => error instanceof ServiceError && error.code === 'internalError',
    );
  });

  it('reports an unreachable table as StorageUnavailableError', async () => {
    const unreachable = new IdempotencyStore({
      client: createDocumentClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 }),
      tableName,
    });
    await expect(unreachable.tryLock(lock())).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(unreachable.get('a', 'b')).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(unreachable.release('a', 'b', 'c')).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
