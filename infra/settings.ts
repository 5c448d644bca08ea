/**
 * The deployment settings: read from CDK context and checked before anything is built.
 *
 * Context keys (set with `cdk synth -c key=value`, or in `cdk.json`/`cdk.context.json`):
 * | key                      | default           | becomes                                         |
 * |--------------------------|-------------------|-------------------------------------------------|
 * | `audience`               | `api.example.com` | `JWT_AUDIENCE`: the `aud` every JWT must carry  |
 * | `jwtMaxLifetimeSeconds`  | `86400`           | `JWT_MAX_LIFETIME_SECONDS`                      |
 * | `jwtClockSkewSeconds`    | `60`              | `JWT_CLOCK_SKEW_SECONDS`                        |
 * | `usageTimeZone`          | `UTC`             | `USAGE_TIME_ZONE` (IANA name)                   |
 * | `executionRetentionDays` | `400`             | `EXECUTION_RETENTION_DAYS`                      |
 * | `stage`                  | `$default`        | the API Gateway stage name                      |
 * | `throttleRateLimit`      | `50`              | steady requests per second, every route         |
 * | `throttleBurstLimit`     | `100`             | burst size, every route                         |
 * | `rateLimitPerMinute`     | `120`             | `RATE_LIMIT_PER_MINUTE` (Engine.Invoke; 0 = off)|
 * | `dynamodbTimeoutMs`      | `3000`            | `DYNAMODB_TIMEOUT_MS` (both functions)          |
 * | `idempotencyTtlSeconds`  | `86400`           | `IDEMPOTENCY_TTL_SECONDS`; results kept +1 day  |
 * | `alarmTopicArn`          | none              | SNS topic of the alarms; none = no notification |
 *
 * `api.example.com` is a placeholder: set `audience` to the API's real domain for any deployment
 * clients use, since tokens minted for another audience are rejected.
 */
import type { App } from 'aws-cdk-lib';
import type { ServiceStackProps } from './stack';

/** Thrown when a context value cannot be used; synth stops before anything is built. */
export class ContextError extends Error {
  constructor(key: string, expected: string, actual: unknown) {
    super(`CDK context "${key}" must be ${expected}, got ${JSON.stringify(actual)}`);
    this.name = 'ContextError';
  }
}

function contextValue(app: App, key: string): unknown {
  return app.node.tryGetContext(key);
}

function nonEmptyString(app: App, key: string, fallback: string): string {
  const value = contextValue(app, key) ?? fallback;
  if (typeof value !== 'string' || value.trim() === '')
    throw new ContextError(key, 'a non-empty string', value);
  return value;
}

/** Accepts numbers from `cdk.json` and numeric strings from `-c key=value`. */
function number(
  app: App,
  key: string,
  fallback: number,
  check: (n: number) => boolean,
  expected: string,
): number {
  const raw = contextValue(app, key) ?? fallback;
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof value !== 'number' || !check(value)) throw new ContextError(key, expected, raw);
  return value;
}

const positiveInteger = (app: App, key: string, fallback: number): number =>
  number(app, key, fallback, (n) => Number.isInteger(n) && n > 0, 'a positive integer');

const nonNegativeInteger = (app: App, key: string, fallback: number): number =>
  number(app, key, fallback, (n) => Number.isInteger(n) && n >= 0, 'an integer ≥ 0');

/** An SNS topic ARN, or undefined when the key is not set. */
function optionalTopicArn(app: App, key: string): string | undefined {
  const value = contextValue(app, key);
  if (value === undefined || value === '') return undefined;
  if (
    typeof value !== 'string' ||
    !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/.test(value)
  ) {
    throw new ContextError(key, 'an SNS topic ARN', value);
  }
  return value;
}

function timeZone(app: App, key: string, fallback: string): string {
  const value = nonEmptyString(app, key, fallback);
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: value });
  } catch {
    throw new ContextError(key, 'an IANA time zone', value);
  }
  return value;
}

function stageName(app: App, key: string, fallback: string): string {
  const value = nonEmptyString(app, key, fallback);
  if (value !== '$default' && !/^[A-Za-z0-9_-]{1,128}$/.test(value)) {
    throw new ContextError(key, '"$default" or up to 128 letters, digits, "-" and "_"', value);
  }
  return value;
}

/**
 * The stack's settings from the app's context, defaults filled in.
 * @throws ContextError when a value is malformed
 */
export function settingsFromContext(app: App): ServiceStackProps {
  return {
    description: 'Model engine API: Engine.Invoke and Usages.List with exactly-once energy metering',
    jwtAudience: nonEmptyString(app, 'audience', 'api.example.com'),
    jwtMaxLifetimeSeconds: positiveInteger(app, 'jwtMaxLifetimeSeconds', 86_400),
    jwtClockSkewSeconds: positiveInteger(app, 'jwtClockSkewSeconds', 60),
    usageTimeZone: timeZone(app, 'usageTimeZone', 'UTC'),
    executionRetentionDays: positiveInteger(app, 'executionRetentionDays', 400),
    stageName: stageName(app, 'stage', '$default'),
    throttle: {
      rateLimit: number(app, 'throttleRateLimit', 50, (n) => Number.isFinite(n) && n >= 0, 'a number ≥ 0'),
      burstLimit: nonNegativeInteger(app, 'throttleBurstLimit', 100),
    },
    rateLimitPerMinute: nonNegativeInteger(app, 'rateLimitPerMinute', 120),
    dynamodbTimeoutMs: positiveInteger(app, 'dynamodbTimeoutMs', 3000),
    idempotencyTtlSeconds: positiveInteger(app, 'idempotencyTtlSeconds', 86_400),
    alarmTopicArn: optionalTopicArn(app, 'alarmTopicArn'),
  };
}
