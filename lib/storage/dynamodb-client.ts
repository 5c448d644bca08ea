/**
 * Builds the DynamoDB document client once per container. Only storage adapters import the SDK.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Attempts per DynamoDB call, the first one included, when time-outs are set (SDK standard retries). */
export const DYNAMODB_MAX_ATTEMPTS = 3;

/** How long the service waits for DynamoDB before calling it unavailable. */
export interface DynamoDbTimeouts {
  /**
   * Longest time one attempt may take, in ms, connecting included: both the connection and the
   * request time-out. A breach is an error (`TimeoutError`), which the SDK retries.
   */
  readonly timeoutMs: number;
  /** Attempts per call, the first one included (default {@link DYNAMODB_MAX_ATTEMPTS}). */
  readonly maxAttempts?: number;
}

/**
 * Client settings that bound a DynamoDB call to about `maxAttempts × timeoutMs` plus the SDK's
 * back-off (a few hundred ms), instead of waiting for the Lambda time-out when DynamoDB hangs.
 */
export function boundedClientConfig(timeouts: DynamoDbTimeouts): DynamoDBClientConfig {
  return {
    maxAttempts: timeouts.maxAttempts ?? DYNAMODB_MAX_ATTEMPTS,
    // Options rather than a NodeHttpHandler instance: importing the handler would bundle
    // @smithy/core (≈125 KB) into functions whose SDK the runtime provides.
    requestHandler: {
      connectionTimeout: timeouts.timeoutMs,
      requestTimeout: timeouts.timeoutMs,
      // Without this flag a breached requestTimeout is only logged as a warning and the call waits on.
      throwOnRequestTimeout: true,
    },
  };
}

/**
 * A document client that strips `undefined` values and keeps numbers as JS numbers.
 * Region, credentials and (locally) `AWS_ENDPOINT_URL_DYNAMODB` come from the SDK's own environment chain.
 * @param config - optional low-level client settings (tests pass an endpoint); they win over `timeouts`
 * @param timeouts - per-attempt time-out and attempts; omitted = the SDK's defaults (no time-out)
 */
export function createDocumentClient(
  config: DynamoDBClientConfig = {},
  timeouts?: DynamoDbTimeouts,
): DynamoDBDocumentClient {
  const bounded = timeouts === undefined ? {} : boundedClientConfig(timeouts);
  return DynamoDBDocumentClient.from(new DynamoDBClient({ ...bounded, ...config }), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
