/**
 * What both handlers need, built once per container on first use: configuration, logger, DynamoDB
 * client (with the configured time-out), usage store, authenticator and rate limiter. The engine
 * catalog lives in the invoke handler only, so the usage function's bundle carries no engine.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Authenticator, createAuthenticator } from '../../lib/auth/authenticate';
import { loadConfig, type ServiceConfig } from '../../lib/config';
import { RateLimiter } from '../../lib/metering/rate-limit';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { RateLimitStore } from '../../lib/storage/rate-limit-store';
import { UsageStore } from '../../lib/storage/usage-store';

/** Shared logger; Powertools reads `POWERTOOLS_SERVICE_NAME` and `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: 'model-engine-api' });

/** The per-container dependencies of the handlers. */
export interface ServiceContext {
  readonly config: ServiceConfig;
  /** The container's one DynamoDB document client, with the configured time-outs. */
  readonly client: DynamoDBDocumentClient;
  readonly usageStore: UsageStore;
  readonly authenticator: Authenticator;
  /** Per-app limit of the operations built with `rateLimited: true` (a no-op when the limit is 0). */
  readonly rateLimiter: RateLimiter;
}

let context: ServiceContext | undefined;

/**
 * The container's dependencies, built on the first call.
 * @throws ConfigurationError when the environment is incomplete (a deployment error)
 */
export function serviceContext(): ServiceContext {
  if (context === undefined) {
    const config = loadConfig();
    // Every DynamoDB call gives up after DYNAMODB_MAX_ATTEMPTS attempts of dynamodbTimeoutMs each.
    const client = createDocumentClient({}, { timeoutMs: config.dynamodbTimeoutMs });
    const credentials = new CredentialStore({ client, tableName: config.tableName });
    context = {
      config,
      client,
      usageStore: new UsageStore({ client, tableName: config.tableName }),
      authenticator: createAuthenticator({ config, credentials }),
      rateLimiter: new RateLimiter({
        counter: new RateLimitStore({ client, tableName: config.tableName }),
        limitPerMinute: config.rateLimitPerMinute,
      }),
    };
  }
  return context;
}
