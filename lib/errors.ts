/**
 * Typed domain errors and the one table of error codes the API documents.
 *
 * Every non-2xx response body is built from a {@link ServiceError} at the HTTP edge
 * (`functions/http/`); the domain throws these and never deals with HTTP bodies itself.
 * `error_code` in a body is the HTTP status followed by the 3-digit sub code below.
 */

/** Severity reported in `error_level` (vendor vocabulary). */
export type ErrorLevel = 'critical' | 'urgent' | 'normal';

/** Origin reported in `error_category` (vendor vocabulary). */
export type ErrorCategory = 'server' | 'client' | 'database' | 'cache' | 'process' | 'internal' | 'undefined';

/** One row of the error code table. */
export interface ErrorCodeDefinition {
  /** HTTP status code. */
  readonly status: number;
  /** Three-digit sub code; `error_code` = `${status}${subCode}`. */
  readonly subCode: string;
  /** Short slug returned as `error`. */
  readonly slug: string;
  readonly level: ErrorLevel;
  readonly category: ErrorCategory;
  /** When the code is used; printed in the README table. */
  readonly meaning: string;
}

/**
 * The error code table. Keep README's "Errors" table in step with it
 * (a test compares them).
 */
export const ERROR_CODES = {
  invalidRequest: {
    status: 400,
    subCode: '100',
    slug: 'invalid_request',
    level: 'normal',
    category: 'client',
    meaning: 'The request body is not a JSON object, or a header is malformed.',
  },
  invalidParameter: {
    status: 400,
    subCode: '101',
    slug: 'invalid_parameter',
    level: 'normal',
    category: 'client',
    meaning: 'A path or query parameter is missing or malformed (dates, flags, `show_refs`).',
  },
  invalidEngineInput: {
    status: 400,
    subCode: '102',
    slug: 'invalid_engine_input',
    level: 'normal',
    category: 'client',
    meaning: "The body does not match the engine's JSON Schema (missing, unknown or mistyped fields).",
  },
  invalidEngineId: {
    status: 400,
    subCode: '103',
    slug: 'invalid_engine_id',
    level: 'normal',
    category: 'client',
    meaning: 'The engine id is not `<32 uppercase hex>.<name>`.',
  },
  unsupportedLyrics: {
    status: 400,
    subCode: '104',
    slug: 'unsupported_lyrics',
    level: 'normal',
    category: 'client',
    meaning:
      'The lyrics cannot be sung: too many lines for the song, no singable syllables, or characters the singer cannot sing.',
  },
  unsupportedOption: {
    status: 400,
    subCode: '105',
    slug: 'unsupported_option',
    level: 'normal',
    category: 'client',
    meaning: 'An engine option names something that does not exist (`bgm_index`, `model_version`).',
  },
  invalidDateRange: {
    status: 400,
    subCode: '106',
    slug: 'invalid_date_range',
    level: 'normal',
    category: 'client',
    meaning: '`start` is after `end`, or the range is longer than 366 days.',
  },
  invalidIdempotencyKey: {
    status: 400,
    subCode: '107',
    slug: 'invalid_idempotency_key',
    level: 'normal',
    category: 'client',
    meaning: 'The `Idempotency-Key` header is not 1–255 printable ASCII characters.',
  },
  missingToken: {
    status: 401,
    subCode: '100',
    slug: 'missing_token',
    level: 'normal',
    category: 'client',
    meaning: 'No `Authorization: Bearer <token>` header.',
  },
  invalidToken: {
    status: 401,
    subCode: '101',
    slug: 'invalid_token',
    level: 'normal',
    category: 'client',
    meaning:
      'The token is malformed, badly signed, expired, not yet valid, or its credential is unknown, revoked or expired.',
  },
  forbidden: {
    status: 403,
    subCode: '100',
    slug: 'forbidden',
    level: 'normal',
    category: 'client',
    meaning: "The token's app may not read this resource (another app's usage).",
  },
  engineNotFound: {
    status: 404,
    subCode: '100',
    slug: 'engine_not_found',
    level: 'normal',
    category: 'client',
    meaning: 'No engine with this id in the catalog.',
  },
  routeNotFound: {
    status: 404,
    subCode: '101',
    slug: 'route_not_found',
    level: 'normal',
    category: 'client',
    meaning: 'No operation at this method and path.',
  },
  idempotencyKeyReused: {
    status: 409,
    subCode: '100',
    slug: 'idempotency_key_reused',
    level: 'normal',
    category: 'client',
    meaning: 'The `Idempotency-Key` was used in the last 24 h with a different request; use a new key.',
  },
  requestInProgress: {
    status: 409,
    subCode: '101',
    slug: 'request_in_progress',
    level: 'normal',
    category: 'client',
    meaning: 'A request with the same `Idempotency-Key` is still running; retry after `Retry-After` seconds.',
  },
  resultTooLarge: {
    status: 413,
    subCode: '100',
    slug: 'result_too_large',
    level: 'normal',
    category: 'client',
    meaning:
      'The result would exceed the 6 MB response limit; the message gives the longest audio that fits.',
  },
  requestTooLarge: {
    status: 413,
    subCode: '101',
    slug: 'request_too_large',
    level: 'normal',
    category: 'client',
    meaning: 'The request body is larger than the documented limit.',
  },
  unsupportedMediaType: {
    status: 415,
    subCode: '100',
    slug: 'unsupported_media_type',
    level: 'normal',
    category: 'client',
    meaning: 'The body is not sent as `Content-Type: application/json`.',
  },
  rateLimited: {
    status: 429,
    subCode: '100',
    slug: 'rate_limited',
    level: 'normal',
    category: 'client',
    meaning: "The app's request rate limit is reached; retry after `Retry-After` seconds.",
  },
  internalError: {
    status: 500,
    subCode: '100',
    slug: 'internal_error',
    level: 'critical',
    category: 'internal',
    meaning: 'An unexpected failure; report the `tid`.',
  },
  engineFailure: {
    status: 500,
    subCode: '101',
    slug: 'engine_failure',
    level: 'critical',
    category: 'process',
    meaning: 'The engine failed while rendering; nothing was metered.',
  },
  storageUnavailable: {
    status: 503,
    subCode: '100',
    slug: 'storage_unavailable',
    level: 'urgent',
    category: 'database',
    meaning:
      'The usage store could not be read or written; nothing was metered and no result is returned. Retry.',
  },
} as const satisfies Record<string, ErrorCodeDefinition>;

/** Name of a row of {@link ERROR_CODES}. */
export type ErrorCodeName = keyof typeof ERROR_CODES;

/**
 * Base of every error the domain throws on purpose.
 *
 * `details` carries data (what was expected, what was received) that the edge may put into the
 * body's `data`; the message says what to fix and is shown to the client when the status is below 500.
 */
export class ServiceError extends Error {
  readonly code: ErrorCodeName;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** Seconds the client should wait before retrying, sent as `Retry-After` (429, 409 in progress, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCodeName,
    message: string,
    options?: { details?: Record<string, unknown>; cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options?.details;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** The row of the code table. */
  get definition(): ErrorCodeDefinition {
    return ERROR_CODES[this.code];
  }

  /** HTTP status of this error. */
  get status(): number {
    return this.definition.status;
  }

  /** Whether the message may be shown to the client (true below 500, as in middy). */
  get expose(): boolean {
    return this.status < 500;
  }
}

/** Bad input from the client: 400, 413 or 415. */
export class ValidationError extends ServiceError {}

/** Missing or unacceptable bearer token: 401. */
export class AuthenticationError extends ServiceError {
  constructor(
    message: string,
    options?: { details?: Record<string, unknown>; cause?: unknown; missing?: boolean },
  ) {
    super(options?.missing ? 'missingToken' : 'invalidToken', message, options);
  }
}

/** The caller is known but may not touch the resource: 403. */
export class ForbiddenError extends ServiceError {
  constructor(message: string, options?: { details?: Record<string, unknown> }) {
    super('forbidden', message, options);
  }
}

/** A named resource does not exist: 404. */
export class NotFoundError extends ServiceError {}

/** The usage store failed (unreachable, throttled, transaction cancelled for a non-client reason): 503. */
export class StorageUnavailableError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super('storageUnavailable', message, { retryAfterSeconds: 1, ...options });
  }
}

/** A write met an existing record it must not overwrite (e.g. a duplicate execution uuid). */
export class ConflictError extends Error {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
    this.name = 'ConflictError';
  }
}
