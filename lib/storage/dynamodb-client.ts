/**
 * Builds the DynamoDB document client once per container. Only storage adapters import the SDK.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A document client that strips `undefined` values and keeps numbers as JS numbers.
 * Region, credentials and (locally) `AWS_ENDPOINT_URL_DYNAMODB` come from the SDK's own environment chain.
 * @param config - optional low-level client settings (tests pass an endpoint, timeouts)
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
