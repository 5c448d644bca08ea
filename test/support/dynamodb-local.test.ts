import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';

describe('test DynamoDB Local', () => {
  it('gives each test file its own table with TTL enabled', async () => {
    const client = new DynamoDBClient({});
    const table = await client.send(new DescribeTableCommand({ TableName: process.env.TABLE_NAME }));
    expect(table.Table?.TableStatus).toBe('ACTIVE');
    expect(table.Table?.GlobalSecondaryIndexes?.[0]?.IndexName).toBe('gsi1');
    client.destroy();
  });
});
