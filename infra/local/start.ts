/**
 * `npm start`: the whole stack on this machine. Starts DynamoDB Local (data under `DATA_DIR`),
 * creates the table, seeds a demo app with an ST and a JWT credential, and serves the API through
 * the local gateway on `http://127.0.0.1:$PORT`. Ctrl-C stops everything, the JVM included.
 *
 * Environment: `PORT` (default 3000), `DATA_DIR` (default `.data`), `DYNAMODB_PORT` (default: a free
 * port), `JWT_AUDIENCE` (default `localhost`), `USAGE_TIME_ZONE` (default UTC).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENGINE_ID_PATTERN, LYRICS_SWAP_PREFIX } from '../../lib/engines/catalog';
import { ensureTable } from '../../lib/storage/create-table';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { JavaMissingError, startDynamoDbLocal } from './dynamodb-local';
import { createGateway } from './gateway';
import { seedDemo } from './seed-demo';

/** File (in `DATA_DIR`) that tells the operator CLI's `--local` where the local table is. */
export const LOCAL_STACK_FILE = 'local-stack.json';
const TABLE_NAME = 'model-engine-local';

async function main(): Promise<void> {
  // Node 20 is supported by the pinned SDK; its notice about future SDK releases is noise on every run.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const started = performance.now();
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  const audience = process.env.JWT_AUDIENCE ?? 'localhost';
  const dynamoPort = process.env.DYNAMODB_PORT === undefined ? undefined : Number(process.env.DYNAMODB_PORT);

  const dynamo = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb'), port: dynamoPort });
  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await dynamo.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    // The handlers read these through lib/config.ts and the SDK's environment chain.
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME,
      RESULT_DIR: join(dataDir, 'results'),
      JWT_AUDIENCE: audience,
      POWERTOOLS_DEV: process.env.POWERTOOLS_DEV ?? 'true',
    });
    const client = new DynamoDBClient({});
    await ensureTable(client, TABLE_NAME);
    client.destroy();

    const baseUrl = `http://127.0.0.1:${port}`;
    const store = new CredentialStore({ client: createDocumentClient(), tableName: TABLE_NAME });
    const engineId = `${LYRICS_SWAP_PREFIX}.hikari`;
    if (!ENGINE_ID_PATTERN.test(engineId)) throw new Error('demo engine id is malformed');
    const demo = await seedDemo({ store, dataDir, baseUrl, audience, engineId });
    writeFileSync(
      join(dataDir, LOCAL_STACK_FILE),
      `${JSON.stringify({ dynamodb_endpoint: dynamo.endpoint, table_name: TABLE_NAME, audience, region: 'local' }, null, 2)}\n`,
    );

    // Imported only now, so they read the environment set above, as in Lambda.
    const invoke = await import('../../functions/invoke-engine');
    const usages = await import('../../functions/list-usages');
    const server = createGateway({
      routes: [
        { routeKey: 'POST /v1/engines/{engine_id}', handler: invoke.handler },
        { routeKey: 'GET /v1/apps/{app_id}/usages', handler: usages.handler },
      ],
      defaultHandler: usages.handler,
    });
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(port, '127.0.0.1', done);
    });
    const today = new Date().toISOString().slice(0, 10);
    console.log(
      [
        `Model engine API listening on ${baseUrl} (ready in ${Math.round(performance.now() - started)} ms)`,
        `DynamoDB Local on ${dynamo.endpoint}, data in ${join(dataDir, 'dynamodb')}`,
        `Demo app ${demo.app_id}; tokens in ${join(dataDir, 'demo.json')}`,
        '',
        'Try:',
        `  curl -s -X POST ${baseUrl}/v1/engines/${engineId} \\`,
        `    -H 'Content-Type: application/json' -H "Authorization: Bearer $(node -p "require('${join(dataDir, 'demo.json')}').st_token")" \\`,
        `    -d '{"lyrics": ["something like you", "all about you"], "bgm_index": 0, "model_version": "v1"}' | head -c 600; echo`,
        `  curl -s "${baseUrl}/v1/apps/${demo.app_id}/usages?start=${today}&end=${today}&detail=true&date=true" \\`,
        `    -H "Authorization: Bearer $(node -p "require('${join(dataDir, 'demo.json')}').jwt")"; echo`,
        '',
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
  } catch (error) {
    console.error(
      `Could not start the local stack: ${error instanceof Error ? error.message : String(error)}`,
    );
    await stop(1);
  }
}

main().catch((error: unknown) => {
  if (error instanceof JavaMissingError) {
    console.error(error.message);
  } else {
    console.error(
      `Could not start the local stack: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  process.exit(1);
});
