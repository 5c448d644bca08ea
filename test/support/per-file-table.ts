/**
 * Runs before every test file: points the SDK at the shared DynamoDB Local, gives the file a table
 * of its own (`TABLE_NAME`), and sets the service configuration the handlers read.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { ensureTable } from '../../lib/storage/create-table';

const endpoint = inject('dynamoEndpoint');
process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
process.env.AWS_REGION = 'local';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.AWS_ACCESS_KEY_ID = 'local';
process.env.AWS_SECRET_ACCESS_KEY = 'local';
process.env.TABLE_NAME = `test-${randomUUID()}`;
process.env.JWT_AUDIENCE = 'api.test.local';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_DEV = 'true';

const client = new DynamoDBClient({});
await ensureTable(client, process.env.TABLE_NAME);
client.destroy();
