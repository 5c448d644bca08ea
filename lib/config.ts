/**
 * The one place that reads infrastructure settings from the environment.
 *
 * CDK (`infra/stack.ts`) and the local stack (`infra/local/`) set these variables; nothing else in
 * `lib/` or `functions/` reads `process.env`. The AWS SDK itself reads `AWS_REGION` and, locally,
 * `AWS_ENDPOINT_URL_DYNAMODB`.
 */

/** Settings of one running service instance. */
export interface ServiceConfig {
  /** DynamoDB table holding apps, credentials, executions and usage aggregates (`TABLE_NAME`). */
  readonly tableName: string;
  /** Expected JWT `aud` claim, usually the API's domain (`JWT_AUDIENCE`). */
  readonly jwtAudience: string;
  /** Longest accepted JWT lifetime `exp − iat`, in seconds (`JWT_MAX_LIFETIME_SECONDS`, default 86 400). */
  readonly jwtMaxLifetimeSeconds: number;
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds (`JWT_CLOCK_SKEW_SECONDS`, default 60). */
  readonly jwtClockSkewSeconds: number;
  /** IANA time zone whose calendar days usage is counted in (`USAGE_TIME_ZONE`, default `UTC`). */
  readonly usageTimeZone: string;
  /** How long execution records are kept before DynamoDB TTL removes them, in days (`EXECUTION_RETENTION_DAYS`, default 400). */
  readonly executionRetentionDays: number;
  /** Directory of kuromoji's IPADIC files (`KUROMOJI_DICT_DIR`); unset = the `kuromoji` package's own `dict/`. */
  readonly kuromojiDictDir: string | undefined;
  /** S3 bucket for idempotent results too large for a DynamoDB item (`RESULT_BUCKET_NAME`); set in AWS. */
  readonly resultBucketName: string | undefined;
  /** Local directory used instead of S3 when no bucket is set (`RESULT_DIR`; the local stack sets it). */
  readonly resultDir: string | undefined;
  /** How long an `Idempotency-Key` is remembered, in seconds (`IDEMPOTENCY_TTL_SECONDS`, default 86 400). */
  readonly idempotencyTtlSeconds: number;
  /** Engine.Invoke requests per app per UTC minute (`RATE_LIMIT_PER_MINUTE`, default 120; 0 = no limit). */
  readonly rateLimitPerMinute: number;
  /** Time-out of one DynamoDB request attempt, in ms (`DYNAMODB_TIMEOUT_MS`, default 3000). */
  readonly dynamodbTimeoutMs: number;
}

/** Names of the environment variables, for the places that set them (CDK, local stack, tests). */
export const ENV = {
  tableName: 'TABLE_NAME',
  jwtAudience: 'JWT_AUDIENCE',
  jwtMaxLifetimeSeconds: 'JWT_MAX_LIFETIME_SECONDS',
  jwtClockSkewSeconds: 'JWT_CLOCK_SKEW_SECONDS',
  usageTimeZone: 'USAGE_TIME_ZONE',
  executionRetentionDays: 'EXECUTION_RETENTION_DAYS',
  kuromojiDictDir: 'KUROMOJI_DICT_DIR',
  resultBucketName: 'RESULT_BUCKET_NAME',
  resultDir: 'RESULT_DIR',
  idempotencyTtlSeconds: 'IDEMPOTENCY_TTL_SECONDS',
  rateLimitPerMinute: 'RATE_LIMIT_PER_MINUTE',
  dynamodbTimeoutMs: 'DYNAMODB_TIMEOUT_MS',
} as const satisfies Record<keyof ServiceConfig, string>;

/** Thrown at start-up when a variable is missing or malformed: a deployment error, not a client one. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new ConfigurationError(`Environment variable ${name} is required`);
  }
  return value;
}

function positiveInteger(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigurationError(`Environment variable ${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

function nonNegativeInteger(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(`Environment variable ${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}

function timeZone(env: Env, name: string): string {
  const value = env[name] ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: value });
  } catch {
    throw new ConfigurationError(`Environment variable ${name} must be an IANA time zone, got "${value}"`);
  }
  return value;
}

/**
 * Reads and checks the configuration.
 * @param env - the environment to read (default `process.env`)
 * @throws ConfigurationError when a required variable is missing or a value is malformed
 */
export function loadConfig(env: Env = process.env): ServiceConfig {
  return {
    tableName: required(env, ENV.tableName),
    jwtAudience: required(env, ENV.jwtAudience),
    jwtMaxLifetimeSeconds: positiveInteger(env, ENV.jwtMaxLifetimeSeconds, 86_400),
    jwtClockSkewSeconds: positiveInteger(env, ENV.jwtClockSkewSeconds, 60),
    usageTimeZone: timeZone(env, ENV.usageTimeZone),
    executionRetentionDays: positiveInteger(env, ENV.executionRetentionDays, 400),
    kuromojiDictDir: env[ENV.kuromojiDictDir] || undefined,
    resultBucketName: env[ENV.resultBucketName] || undefined,
    resultDir: env[ENV.resultDir] || undefined,
    idempotencyTtlSeconds: positiveInteger(env, ENV.idempotencyTtlSeconds, 86_400),
    rateLimitPerMinute: nonNegativeInteger(env, ENV.rateLimitPerMinute, 120),
    dynamodbTimeoutMs: positiveInteger(env, ENV.dynamodbTimeoutMs, 3000),
  };
}
