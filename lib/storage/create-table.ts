/**
 * Creates the service table with the layout of `table-definition.ts` (local stack, tests and the
 * operator CLI against DynamoDB Local). Production tables are created by CDK.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { TABLE_ATTRIBUTES as A, GSI1_NAME } from './table-definition';

/**
 * Creates the table if it does not exist yet (idempotent) and enables TTL on `ttl`.
 * @returns true when the table was created by this call
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return false;
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ResourceNotFoundException') throw error;
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: A.partitionKey, AttributeType: 'S' },
          { AttributeName: A.sortKey, AttributeType: 'S' },
          { AttributeName: A.gsi1PartitionKey, AttributeType: 'S' },
          { AttributeName: A.gsi1SortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: A.partitionKey, KeyType: 'HASH' },
          { AttributeName: A.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: GSI1_NAME,
            KeySchema: [
              { AttributeName: A.gsi1PartitionKey, KeyType: 'HASH' },
              { AttributeName: A.gsi1SortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return false;
    throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: A.ttl, Enabled: true },
    }),
  );
  return true;
}
