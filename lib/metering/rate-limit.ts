/**
 * Per-app rate limit of Engine.Invoke: a fixed one-minute window counter kept in DynamoDB, so the
 * limit holds across Lambda instances.
 *
 * Windows start on the minute of the request's arrival (API Gateway's clock, the same for every
 * instance). An admitted request adds one to its window; a refused one adds nothing, so clients
 * that keep retrying while limited do not push the window further. Fail closed: when the counter
 * cannot be read or written the request is refused with 503, because the metering write that
 * follows needs the same table and would fail after the engine had already spent its time.
 */
import { ServiceError } from '../errors';

/** Length of a window, in seconds. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** How long a window's counter is kept after the window ends before DynamoDB TTL may delete it, in seconds. */
export const RATE_LIMIT_RETENTION_SECONDS = 300;

/** One window of the limit. */
export interface RateLimitWindow {
  /** First instant of the window (a whole UTC minute). */
  readonly start: Date;
  /** First instant after the window. */
  readonly end: Date;
  /** `start` as the counter's sort key: ISO 8601 to the second, e.g. `2026-11-22T05:21:00Z`. */
  readonly key: string;
}

/** The window counter's storage (the DynamoDB adapter `RateLimitStore`). */
export interface RateLimitCounter {
  /**
   * Adds one to the app's counter of a window, unless it has reached `limit`.
   * @param input.windowKey - {@link RateLimitWindow.key}
   * @param input.limit - largest count the window may reach
   * @param input.expiresAtUnix - Unix seconds after which the counter may be deleted
   * @returns the count after the addition, or `undefined` when the limit was reached (nothing added)
   * @throws StorageUnavailableError when the counter cannot be written (503)
   */
  incrementBelowLimit(input: {
    readonly appId: string;
    readonly windowKey: string;
    readonly limit: number;
    readonly expiresAtUnix: number;
  }): Promise<number | undefined>;
}

/** An admitted request. */
export interface RateLimitAdmission {
  /** Requests per window, or `undefined` when the limit is off. */
  readonly limit: number | undefined;
  /** Requests left in the window after this one (`undefined` when the limit is off). */
  readonly remaining: number | undefined;
}

/**
 * The window holding an instant.
 * @param at - the instant (the request's arrival)
 */
export function windowOf(at: Date): RateLimitWindow {
  const windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000;
  const startMs = Math.floor(at.getTime() / windowMs) * windowMs;
  const start = new Date(startMs);
  return { start, end: new Date(startMs + windowMs), key: `${start.toISOString().slice(0, 19)}Z` };
}

/**
 * Whole seconds from an instant to the end of its window, at least 1: the `Retry-After` of a 429.
 * @param at - the instant (the request's arrival)
 */
export function secondsToWindowEnd(at: Date): number {
  return Math.max(1, Math.ceil((windowOf(at).end.getTime() - at.getTime()) / 1000));
}

/** Admits or refuses requests of an app against its per-minute limit. */
export class RateLimiter {
  readonly #counter: RateLimitCounter;
  readonly #limitPerMinute: number;

  /**
   * @param deps.counter - where window counters live
   * @param deps.limitPerMinute - requests per app per window; 0 turns the limit off (the counter is never touched)
   */
  constructor(deps: { counter: RateLimitCounter; limitPerMinute: number }) {
    if (!Number.isInteger(deps.limitPerMinute) || deps.limitPerMinute < 0) {
      throw new RangeError(`limitPerMinute must be a non-negative integer, got ${deps.limitPerMinute}`);
    }
    this.#counter = deps.counter;
    this.#limitPerMinute = deps.limitPerMinute;
  }

  /** Requests per app per minute; 0 = no limit. */
  get limitPerMinute(): number {
    return this.#limitPerMinute;
  }

  /**
   * Counts one request of the app in the window of `at`, or refuses it.
   * @param appId - the authenticated app
   * @param at - when the request arrived (picks the window)
   * @throws ServiceError `rateLimited` (429) with `retryAfterSeconds` = whole seconds to the window's end
   * @throws StorageUnavailableError (503) when the counter cannot be written (fail closed)
   */
  async admit(appId: string, at: Date): Promise<RateLimitAdmission> {
    const limit = this.#limitPerMinute;
    if (limit === 0) return { limit: undefined, remaining: undefined };
    const window = windowOf(at);
    const count = await this.#counter.incrementBelowLimit({
      appId,
      windowKey: window.key,
      limit,
      expiresAtUnix: Math.floor(window.end.getTime() / 1000) + RATE_LIMIT_RETENTION_SECONDS,
    });
    if (count === undefined) {
      const retryAfterSeconds = secondsToWindowEnd(at);
      throw new ServiceError(
        'rateLimited',
        `The app may make ${limit} Engine.Invoke requests per minute; retry after ${retryAfterSeconds} s`,
        {
          retryAfterSeconds,
          details: { limit_per_minute: limit, retry_after_seconds: retryAfterSeconds },
        },
      );
    }
    return { limit, remaining: Math.max(0, limit - count) };
  }
}
