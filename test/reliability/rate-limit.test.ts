/**
 * The rate limiter and its DynamoDB window counter, against DynamoDB Local: exact admission under
 * concurrency from several "instances", refused attempts not counted, window arithmetic, fail closed.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceError, StorageUnavailableError } from '../../lib/errors';
import {
  RATE_LIMIT_RETENTION_SECONDS,
  type RateLimitCounter,
  RateLimiter,
  secondsToWindowEnd,
  windowOf,
} from '../../lib/metering/rate-limit';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { RateLimitStore } from '../../lib/storage/rate-limit-store';
import { keys } from '../../lib/storage/table-definition';

const tableName = process.env.TABLE_NAME ?? '';
const client = createDocumentClient();

/** A limiter as one Lambda instance builds it: its own client, the shared table. */
function instanceLimiter(limitPerMinute: number): RateLimiter {
  return new RateLimiter({
    counter: new RateLimitStore({ client: createDocumentClient(), tableName }),
    limitPerMinute,
  });
}

const newAppId = () => randomBytes(16).toString('hex').toUpperCase();

async function windowItem(appId: string, at: Date): Promise<Record<string, unknown> | undefined> {
  const result = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.rateLimitWindow(appId, windowOf(at).key),
      ConsistentRead: true,
    }),
  );
  return result.Item;
}

async function outcome(promise: Promise<unknown>): Promise<'admitted' | 'limited'> {
  try {
    await promise;
    return 'admitted';
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'rateLimited') return 'limited';
    throw error;
  }
}

describe('rate-limit windows', () => {
  it('puts every instant in the whole UTC minute that contains it, with Retry-After 1–60 s to its end', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        (at) => {
          const window = windowOf(at);
          expect(window.start.getTime()).toBeLessThanOrEqual(at.getTime());
          expect(window.end.getTime()).toBeGreaterThan(at.getTime());
          expect(window.end.getTime() - window.start.getTime()).toBe(60_000);
          expect(window.start.getUTCSeconds()).toBe(0);
          expect(window.start.getUTCMilliseconds()).toBe(0);
          expect(window.key).toBe(window.start.toISOString().replace('.000Z', 'Z'));
          const retryAfter = secondsToWindowEnd(at);
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(60);
          // Retrying after Retry-After seconds always lands in a later window.
          expect(windowOf(new Date(at.getTime() + retryAfter * 1000)).start.getTime()).toBe(
            window.end.getTime(),
          );
        },
      ),
    );
  });

  it('names windows as the table layout documents them', () => {
    expect(windowOf(new Date('2026-11-22T05:21:42.123Z')).key).toBe('2026-11-22T05:21:00Z');
    expect(secondsToWindowEnd(new Date('2026-11-22T05:21:42.123Z'))).toBe(18);
    expect(secondsToWindowEnd(new Date('2026-11-22T05:21:59.999Z'))).toBe(1);
  });
});

describe('RateLimiter with the DynamoDB counter', () => {
  it('admits exactly the limit when three instances race, and refused attempts add nothing', async () => {
    const appId = newAppId();
    const at = new Date();
    const limit = 7;
    const instances = [instanceLimiter(limit), instanceLimiter(limit), instanceLimiter(limit)];
    const attempts: Promise<'admitted' | 'limited'>[] = [];
    for (let round = 0; round < 9; round += 1) {
      for (const instance of instances) attempts.push(outcome(instance.admit(appId, at)));
    }
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(limit);
    expect(outcomes.filter((o) => o === 'limited')).toHaveLength(27 - limit);
    const item = await windowItem(appId, at);
    expect(item?.count).toBe(limit);
    expect(item?.ttl).toBe(Math.floor(windowOf(at).end.getTime() / 1000) + RATE_LIMIT_RETENTION_SECONDS);
  });

  it('refuses with 429 rate_limited, Retry-After to the end of the window and the limit in the details', async () => {
    const appId = newAppId();
    const limiter = instanceLimiter(2);
    const at = new Date('2030-01-01T00:00:45.500Z');
    expect(await limiter.admit(appId, at)).toEqual({ limit: 2, remaining: 1 });
    expect(await limiter.admit(appId, at)).toEqual({ limit: 2, remaining: 0 });
    const refused = await limiter.admit(appId, at).catch((error: unknown) => error);
    if (!(refused instanceof ServiceError))
      throw new Error(`expected a ServiceError, got ${String(refused)}`);
    const error = refused;
    expect({ status: error.status, code: error.code, retryAfter: error.retryAfterSeconds }).toEqual({
      status: 429,
      code: 'rateLimited',
      retryAfter: 15,
    });
    expect(error.details).toEqual({ limit_per_minute: 2, retry_after_seconds: 15 });
  });

  it('keeps apps and windows apart', async () => {
    const [first, second] = [newAppId(), newAppId()];
    const limiter = instanceLimiter(1);
    const minute = new Date('2030-01-01T00:00:10Z');
    const nextMinute = new Date('2030-01-01T00:01:10Z');
    await limiter.admit(first, minute);
    await expect(limiter.admit(first, minute)).rejects.toMatchObject({ code: 'rateLimited' });
    await expect(limiter.admit(second, minute)).resolves.toEqual({ limit: 1, remaining: 0 });
    await expect(limiter.admit(first, nextMinute)).resolves.toEqual({ limit: 1, remaining: 0 });
  });

  it('never touches the counter when the limit is 0 (off)', async () => {
    const calls: unknown[] = [];
    const counter: RateLimitCounter = {
      incrementBelowLimit: async (input) => {
        calls.push(input);
        return 1;
      },
    };
    const limiter = new RateLimiter({ counter, limitPerMinute: 0 });
    for (let i = 0; i < 5; i += 1) {
      expect(await limiter.admit('A', new Date())).toEqual({ limit: undefined, remaining: undefined });
    }
    expect(calls).toEqual([]);
  });

  it('fails closed: an unreachable counter is a 503, not an admission', async () => {
    const limiter = new RateLimiter({
      counter: new RateLimitStore({
        client: createDocumentClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 }),
        tableName,
      }),
      limitPerMinute: 10,
    });
    await expect(limiter.admit(newAppId(), new Date())).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('treats a missing table as our bug (500), not an outage', async () => {
    const limiter = new RateLimiter({
      counter: new RateLimitStore({ client, tableName: 'no-such-table' }),
      limitPerMinute: 10,
    });
    await expect(limiter.admit(newAppId(), new Date())).rejects.toMatchObject({ code: 'internalError' });
  });
});
