/**
 * What both handlers need, built once per container on first use: configuration, logger, DynamoDB
 * client, usage store and authenticator. The engine catalog lives in the invoke handler only, so the
 * usage function's bundle carries no engine.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { type Authenticator, createAuthenticator } from '../../lib/auth/authenticate';
import { loadConfig, type ServiceConfig } from '../../lib/config';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { UsageStore } from '../../lib/storage/usage-store';

/** Shared logger; Powertools reads `POWERTOOLS_SERVICE_NAME` and `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: 'model-engine-api' });

/** The per-container dependencies of the handlers. */
export interface ServiceContext {
  readonly config: ServiceConfig;
  readonly usageStore: UsageStore;
  readonly authenticator: Authenticator;
}

let context: ServiceContext | undefined;

/**
 * The container's dependencies, built on the first call.
 * @throws ConfigurationError when the environment is incomplete (a deployment error)
 */
export function serviceContext(): ServiceContext {
  if (context === undefined) {
    const config = loadConfig();
    const client = createDocumentClient();
    const credentials = new CredentialStore({ client, tableName: config.tableName });
    context = {
      config,
      usageStore: new UsageStore({ client, tableName: config.tableName }),
      authenticator: createAuthenticator({ config, credentials }),
    };
  }
  return context;
}
