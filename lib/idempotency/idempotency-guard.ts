/**
 * Claims an `Idempotency-Key` before an engine runs: either the run gets the key's lock, or the
 * caller learns that the key answers with a stored response, belongs to another request (409100),
 * or is being served right now (409101).
 *
 * The lock is completed by the metering transaction (`UsageStore.recordExecution`), never on its
 * own, so a key is COMPLETED exactly when its execution is metered.
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors';
import type { IdempotencyCompletion, IdempotencyStore, StoredResponse } from '../storage/idempotency-store';
import type { ResultStore } from '../storage/result-store/result-store';
import { hashIdempotencyKey } from './idempotency-key';

/** How long a run holds a key before another request may take it over, in seconds. Longer than the 28 s function time-out. */
export const DEFAULT_LOCK_SECONDS = 60;

/** Largest response kept inside the DynamoDB item, in UTF-8 bytes; items are limited to 400 KB. */
export const DEFAULT_INLINE_LIMIT_BYTES = 300 * 1024;

/** What idempotent invocations need. */
export interface IdempotencyDependencies {
  readonly store: IdempotencyStore;
  /** Where responses over `inlineLimitBytes` are kept. */
  readonly resultStore: ResultStore;
  /** How long a key is remembered, in seconds (`IDEMPOTENCY_TTL_SECONDS`). */
  readonly ttlSeconds: number;
  /** Lock duration in seconds; default {@link DEFAULT_LOCK_SECONDS}. */
  readonly lockSeconds?: number | undefined;
  /** Inline threshold in bytes; default {@link DEFAULT_INLINE_LIMIT_BYTES}. */
  readonly inlineLimitBytes?: number | undefined;
  /** Current time in ms since the Unix epoch; default `Date.now`. */
  readonly clock?: (() => number) | undefined;
}

/** Which key, for which request. */
export interface IdempotencyScope {
  /** The caller's app: keys are scoped per app. */
  readonly appId: string;
  /** The validated `Idempotency-Key`. */
  readonly key: string;
  /** `requestFingerprint` of the request. */
  readonly requestHash: string;
}

/** Outcome of {@link claimIdempotencyKey}. */
export type Claim =
  | { readonly kind: 'replay' /** the stored response JSON, as first returned */; readonly body: string }
  | { readonly kind: 'locked'; readonly lock: IdempotencyLock };

/** Attempts of lock-then-read; more than one only when a key expires or is released in between. */
const MAX_ATTEMPTS = 3;

function nowSeconds(deps: IdempotencyDependencies): number {
  return Math.floor((deps.clock ?? Date.now)() / 1000);
}

/** The lock a run holds on a key, from {@link claimIdempotencyKey} until completion or release. */
export class IdempotencyLock {
  readonly #scope: IdempotencyScope & { readonly keyHash: string; readonly lockToken: string };
  readonly #deps: IdempotencyDependencies;

  /**
   * Built by {@link claimIdempotencyKey} once the lock is taken.
   * @param scope - the key, its hash, and the token the lock was taken with
   */
  constructor(
    scope: IdempotencyScope & { readonly keyHash: string; readonly lockToken: string },
    deps: IdempotencyDependencies,
  ) {
    this.#scope = scope;
    this.#deps = deps;
  }

  /**
   * Stores the response where it will be replayed from, and returns the completion to write in the
   * metering transaction. A response over the inline limit is written to the result store first
   * (under a key unique to this execution, so a run that lost its lock cannot overwrite the winner's).
   * @param executionUuid - the execution's uuid
   * @param responseJson - the response body exactly as returned to the client
   * @throws StorageUnavailableError when the result store cannot be written
   */
  async prepareCompletion(executionUuid: string, responseJson: string): Promise<IdempotencyCompletion> {
    const bytes = Buffer.from(responseJson, 'utf8');
    let response: StoredResponse;
    if (bytes.length <= (this.#deps.inlineLimitBytes ?? DEFAULT_INLINE_LIMIT_BYTES)) {
      response = { kind: 'inline', body: responseJson };
    } else {
      const key = `results/${this.#scope.appId}/${this.#scope.keyHash}/${executionUuid}.json`;
      response = { kind: 'pointer', pointer: await this.#deps.resultStore.put(key, bytes) };
    }
    const now = this.#deps.clock?.() ?? Date.now();
    return {
      appId: this.#scope.appId,
      keyHash: this.#scope.keyHash,
      lockToken: this.#scope.lockToken,
      executionUuid,
      completedAt: new Date(now),
      response,
      expiresAt: Math.floor(now / 1000) + this.#deps.ttlSeconds,
    };
  }

  /**
   * Gives the key back after a failed run so the client can retry at once. Best effort: if
   * DynamoDB cannot be reached the lock simply expires after the lock duration, and the caller's
   * own error is what the client must see.
   * @returns whether the lock was released by this call
   */
  async release(): Promise<boolean> {
    try {
      return await this.#deps.store.release(this.#scope.appId, this.#scope.keyHash, this.#scope.lockToken);
    } catch {
      return false;
    }
  }
}

/**
 * Claims a key for a request.
 * @returns `locked` when this run may execute (and must complete or release the lock), or `replay`
 *   with the response stored by the run that completed the key
 * @throws ServiceError `idempotencyKeyReused` (409) when the key was used for a different request
 * @throws ServiceError `requestInProgress` (409, `retryAfterSeconds` = seconds until the lock expires,
 *   at least 1) when another run holds the key
 * @throws StorageUnavailableError when DynamoDB or the result store cannot be reached
 */
export async function claimIdempotencyKey(
  scope: IdempotencyScope,
  deps: IdempotencyDependencies,
): Promise<Claim> {
  const keyHash = hashIdempotencyKey(scope.key);
  const lockSeconds = deps.lockSeconds ?? DEFAULT_LOCK_SECONDS;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const now = nowSeconds(deps);
    const lockToken = randomUUID();
    const outcome = await deps.store.tryLock({
      appId: scope.appId,
      keyHash,
      requestHash: scope.requestHash,
      lockToken,
      now,
      lockExpiresAt: now + lockSeconds,
      expiresAt: now + deps.ttlSeconds,
    });
    if (outcome === 'acquired') {
      return { kind: 'locked', lock: new IdempotencyLock({ ...scope, keyHash, lockToken }, deps) };
    }

    const record = await deps.store.get(scope.appId, keyHash);
    // Gone or expired since the lock attempt (TTL, a release, a lock that just ran out): try again.
    if (record === undefined || record.expiresAt <= now) continue;
    if (record.requestHash !== scope.requestHash) {
      throw new ServiceError(
        'idempotencyKeyReused',
        'This Idempotency-Key was already used with a different request (engine, show_refs or body); send a new key for a new request',
      );
    }
    if (record.status === 'COMPLETED') {
      const body =
        record.response.kind === 'inline'
          ? record.response.body
          : (await deps.resultStore.get(record.response.pointer)).toString('utf8');
      return { kind: 'replay', body };
    }
    if (record.lockExpiresAt > now) {
      const retryAfterSeconds = Math.max(1, record.lockExpiresAt - now);
      throw new ServiceError(
        'requestInProgress',
        `A request with this Idempotency-Key is still running; retry after ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }
  throw new ServiceError(
    'requestInProgress',
    'A request with this Idempotency-Key is changing state; retry after 1 s',
    { retryAfterSeconds: 1 },
  );
}
