/**
 * The fault proxy itself: what the SDK sees through it in each mode, so the fault tests inject
 * the faults they claim to.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FaultProxy } from '../support/fault-proxy';

let proxy: FaultProxy;
let client: DynamoDBClient;

beforeAll(async () => {
  proxy = await FaultProxy.start(inject('dynamoEndpoint'));
  client = new DynamoDBClient({ endpoint: proxy.endpoint, maxAttempts: 1 });
});

afterAll(async () => {
  client.destroy();
  await proxy.close();
});

async function failure(): Promise<{ name: string; code: unknown; status: number | undefined }> {
  const error: unknown = await client.send(new ListTablesCommand({ Limit: 1 })).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error('expected the call to fail');
  const metadata: unknown = Reflect.get(error, '$metadata');
  const status =
    typeof metadata === 'object' && metadata !== null ? Reflect.get(metadata, 'httpStatusCode') : undefined;
  return {
    name: error.name,
    code: Reflect.get(error, 'code'),
    status: typeof status === 'number' ? status : undefined,
  };
}

describe('fault proxy', () => {
  it('passes requests through unchanged, signature included', async () => {
    proxy.setMode({ kind: 'pass' });
    await expect(client.send(new ListTablesCommand({ Limit: 1 }))).resolves.toBeDefined();
    expect(proxy.count('forwarded', 'ListTables')).toBeGreaterThanOrEqual(1);
  });

  it('throttles the way DynamoDB does: the SDK raises its own ProvisionedThroughputExceededException', async () => {
    proxy.setMode({ kind: 'throttle', operations: ['ListTables'] });
    expect(await failure()).toMatchObject({ name: 'ProvisionedThroughputExceededException', status: 400 });
  });

  it('makes DynamoDB unreachable, pooled connections included', async () => {
    proxy.setMode({ kind: 'pass' });
    proxy.resetCounts();
    await client.send(new ListTablesCommand({ Limit: 1 }));
    proxy.setMode({ kind: 'unreachable' });
    const outcome = await failure();
    // The SDK's HTTP handler reports a reset connection as a retryable TimeoutError.
    expect(outcome).toMatchObject({ name: 'TimeoutError', status: undefined });
    expect(['ECONNRESET', 'EPIPE']).toContain(outcome.code);
    expect(proxy.count('forwarded', 'ListTables')).toBe(1);
    expect(proxy.count('refused')).toBeGreaterThanOrEqual(1);
  });

  it('applies a fault to the first `times` matching requests only', async () => {
    proxy.resetCounts();
    proxy.setMode({ kind: 'throttle', operations: ['ListTables'], times: 2 });
    expect((await failure()).name).toBe('ProvisionedThroughputExceededException');
    expect((await failure()).name).toBe('ProvisionedThroughputExceededException');
    await expect(client.send(new ListTablesCommand({ Limit: 1 }))).resolves.toBeDefined();
    expect(proxy.summary()).toBe('throttled ListTables ×2, forwarded ListTables ×1');
  });
});
