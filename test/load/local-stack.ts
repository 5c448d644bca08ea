/**
 * Starts `npm start`'s entry point (`infra/local/start.ts`) as a child process with its own data
 * directory and port, for scripts that drive the API from outside, and stops it together with its
 * DynamoDB Local JVM.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/dynamodb-local';

/** `<dataDir>/demo.json`, written by the local stack. */
export interface DemoFile {
  readonly base_url: string;
  readonly app_id: string;
  readonly st_token: string;
  readonly jwt: string;
  readonly audience: string;
}

/** `<dataDir>/local-stack.json`, written by the local stack. */
export interface LocalStackFile {
  readonly dynamodb_endpoint: string;
  readonly table_name: string;
  readonly audience: string;
  readonly region: string;
}

/** A running local stack. */
export interface LocalStack {
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly demo: DemoFile;
  readonly local: LocalStackFile;
  /** The last lines the stack printed, for diagnostics. */
  output(): string;
  /**
   * Stops the stack (SIGTERM: it stops its JVM and exits), kills a JVM left behind, removes the
   * data directory. Safe to call twice.
   * @returns whether a DynamoDB Local JVM of this stack had to be killed
   */
  stop(): Promise<{ leftoverJvmKilled: boolean }>;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function stringField(value: unknown, name: string, file: string): string {
  const field: unknown = typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
  if (typeof field !== 'string' || field === '') throw new Error(`${file} has no "${name}" string`);
  return field;
}

/** PIDs of DynamoDB Local JVMs whose data directory is under `dataDir` (ours alone: the dir is fresh). */
function jvmsOf(dataDir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dataDir}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/**
 * Starts the local stack and resolves when it listens.
 * @param options.env - extra environment for the stack (e.g. `RATE_LIMIT_PER_MINUTE`)
 * @param options.startTimeoutMs - how long to wait for "listening on" (default 120 000 ms)
 * @throws Error when the stack exits or does not listen in time (it is stopped first)
 */
export async function startLocalStack(
  options: { env?: Record<string, string>; startTimeoutMs?: number } = {},
): Promise<LocalStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-engine-load-'));
  const port = await freePort();
  // The stack picks its own DynamoDB endpoint and table; inherited test settings must not leak in.
  const { AWS_ENDPOINT_URL_DYNAMODB: _endpoint, TABLE_NAME: _table, ...inherited } = process.env;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: {
      ...inherited,
      PORT: String(port),
      DATA_DIR: dataDir,
      JWT_AUDIENCE: 'localhost',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  // Always drained: a full pipe would block the stack's logging and stall the server.
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit');

  let stopped: Promise<{ leftoverJvmKilled: boolean }> | undefined;
  const stop = (): Promise<{ leftoverJvmKilled: boolean }> => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited.catch(() => undefined);
        clearTimeout(timer);
      }
      const leftovers = jvmsOf(dataDir);
      for (const pid of leftovers) process.kill(pid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      return { leftoverJvmKilled: leftovers.length > 0 };
    })();
    return stopped;
  };

  try {
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(
        () =>
          fail(new Error(`the local stack did not listen within ${options.startTimeoutMs ?? 120_000} ms`)),
        options.startTimeoutMs ?? 120_000,
      );
      const onData = (): void => {
        if (!tail.includes('listening on')) return;
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        ready();
      };
      child.stdout?.on('data', onData);
      exited.then(
        ([code]) => {
          clearTimeout(timer);
          fail(new Error(`the local stack exited with ${String(code)}: ${tail}`));
        },
        (error: unknown) => {
          clearTimeout(timer);
          fail(error);
        },
      );
    });
    const demoPath = join(dataDir, 'demo.json');
    const localPath = join(dataDir, 'local-stack.json');
    const demoJson = readJson(demoPath);
    const localJson = readJson(localPath);
    const demo: DemoFile = {
      base_url: stringField(demoJson, 'base_url', demoPath),
      app_id: stringField(demoJson, 'app_id', demoPath),
      st_token: stringField(demoJson, 'st_token', demoPath),
      jwt: stringField(demoJson, 'jwt', demoPath),
      audience: stringField(demoJson, 'audience', demoPath),
    };
    const local: LocalStackFile = {
      dynamodb_endpoint: stringField(localJson, 'dynamodb_endpoint', localPath),
      table_name: stringField(localJson, 'table_name', localPath),
      audience: stringField(localJson, 'audience', localPath),
      region: stringField(localJson, 'region', localPath),
    };
    return { dataDir, baseUrl: `http://127.0.0.1:${port}`, demo, local, output: () => tail, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
