/**
 * End to end through the one-command local stack: starts `infra/local/start.ts` (as `npm start`
 * does) with its own DynamoDB Local and data directory, and talks to it over HTTP.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import wavefile from 'wavefile';
import { freePort } from '../../infra/local/dynamodb-local';

interface Demo {
  base_url: string;
  app_id: string;
  engine_id: string;
  st_token: string;
  jwt: string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'model-engine-e2e-'));
const EXAMPLE = { lyrics: ['something like you', 'all about you'], bgm_index: 0, model_version: 'v1' };
let stack: ChildProcess | undefined;
let demo: Demo;

/** Starts the local stack and resolves when it prints that it is listening. */
async function startStack(port: number): Promise<ChildProcess> {
  const { AWS_ENDPOINT_URL_DYNAMODB: _e, TABLE_NAME: _t, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: { ...env, PORT: String(port), DATA_DIR: dataDir, JWT_AUDIENCE: 'localhost' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((ready, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) ready();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => fail(new Error(`local stack exited with ${code}: ${output}`)));
  });
  return child;
}

async function stopStack(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await exited;
  return code as number | null;
}

function dynamoJvmsFor(dir: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dir}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function call(method: string, path: string, token: string | undefined, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${demo.base_url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  return { status: response.status, tid: response.headers.get('tid'), json };
}

function expectErrorBody(
  result: { status: number; tid: string | null; json: Record<string, unknown> },
  status: number,
) {
  expect(result.status).toBe(status);
  expect(Object.keys(result.json).sort()).toEqual(
    ['data', 'error', 'error_category', 'error_code', 'error_level', 'message', 'status_code'].sort(),
  );
  expect(result.json.status_code).toBe(status);
  expect(String(result.json.error_code)).toMatch(new RegExp(`^${status}\\d{3}$`));
  expect((result.json.data as { tid: string }).tid).toBe(result.tid);
}

const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  stack = await startStack(await freePort());
  demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as Demo;
}, 120_000);

afterAll(async () => {
  if (stack) await stopStack(stack);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('local stack (npm start)', () => {
  const energies: number[] = [];

  it('writes demo.json with both token kinds and the JWT key material', () => {
    const file = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(file).sort()).toEqual(
      [
        'app_id',
        'audience',
        'base_url',
        'engine_id',
        'jwt',
        'jwt_kid',
        'jwt_private_key_pem',
        'st_token',
      ].sort(),
    );
    expect(file.st_token).toMatch(/^st_[0-9a-f]{32}_/);
    expect(file.jwt_private_key_pem).toContain('PRIVATE KEY');
    const claims = JSON.parse(Buffer.from(file.jwt?.split('.')[1] ?? '', 'base64url').toString()) as {
      exp: number;
      iat: number;
    };
    expect(claims.exp - claims.iat).toBeGreaterThanOrEqual(3600);
  });

  it('invokes the example with an ST token and returns a playable 16-bit PCM WAV', async () => {
    const { status, json } = await call('POST', `/v1/engines/${demo.engine_id}`, demo.st_token, EXAMPLE);
    expect(status).toBe(200);
    const result = json.result as { code: string; duration: number; mix_data_url: string; lyrics: string[] };
    const usage = json.usage as { energy: { response: number; total: number } };
    expect(result.code).toBe('0000');
    expect(usage.energy.response).toBe(Math.floor(result.duration));
    energies.push(usage.energy.total);

    const bytes = Buffer.from(result.mix_data_url.replace('data:audio/wav;base64,', ''), 'base64');
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.subarray(8, 12).toString()).toBe('WAVE');
    const wav = new wavefile.WaveFile(bytes);
    const fmt = wav.fmt as {
      audioFormat: number;
      bitsPerSample: number;
      numChannels: number;
      sampleRate: number;
    };
    const data = wav.data as { chunkSize: number };
    expect(fmt.audioFormat).toBe(1);
    expect(fmt.bitsPerSample).toBe(16);
    const seconds = data.chunkSize / (fmt.sampleRate * fmt.numChannels * 2);
    expect(seconds).toBeGreaterThanOrEqual(result.duration);
    expect(seconds).toBeLessThan(result.duration + 5);
  });

  it('invokes with the JWT too', async () => {
    const { status, json } = await call('POST', `/v1/engines/${demo.engine_id}`, demo.jwt, {
      lyrics: ['あしたへのみち'],
    });
    expect(status).toBe(200);
    energies.push((json.usage as { energy: { total: number } }).energy.total);
  });

  it('reports totals equal to the sum of the energies returned, in rows that add up', async () => {
    const path = `/v1/apps/${demo.app_id}/usages?start=${today()}&end=${today()}&detail=true&date=true`;
    const { status, json } = await call('GET', path, demo.jwt);
    expect(status).toBe(200);
    const total = energies.reduce((a, b) => a + b, 0);
    expect((json.usage as { total: number }).total).toBe(total);
    const rows = json.usage_list as { date: string; engine_id: string; count: number; response: number }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ date: today(), engine_id: demo.engine_id, count: 2, response: total });
  });

  it('answers the documented errors', async () => {
    expectErrorBody(await call('POST', `/v1/engines/${demo.engine_id}`, undefined, EXAMPLE), 401);
    expectErrorBody(
      await call('POST', `/v1/engines/${demo.engine_id}`, `${demo.jwt.slice(0, -4)}AAAA`, EXAMPLE),
      401,
    );
    expectErrorBody(
      await call('GET', `/v1/apps/${'0'.repeat(32)}/usages?start=${today()}&end=${today()}`, demo.st_token),
      403,
    );
    expectErrorBody(
      await call('GET', `/v1/apps/${demo.app_id}/usages?start=2024-02-30&end=${today()}`, demo.st_token),
      400,
    );
    expectErrorBody(
      await call('POST', `/v1/engines/${demo.engine_id.split('.')[0]}.nobody`, demo.st_token, EXAMPLE),
      404,
    );
    expectErrorBody(await call('GET', '/v1/unknown', demo.st_token), 404);
  });

  it('stops DynamoDB Local on SIGTERM and keeps the data across a restart', async () => {
    if (!stack) throw new Error('stack not started');
    expect(dynamoJvmsFor(dataDir).length).toBe(1);
    expect(await stopStack(stack)).toBe(0);
    expect(dynamoJvmsFor(dataDir)).toEqual([]);

    stack = await startStack(await freePort());
    const again = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as Demo;
    expect(again.app_id).toBe(demo.app_id);
    demo = again;
    const { json } = await call(
      'GET',
      `/v1/apps/${demo.app_id}/usages?start=${today()}&end=${today()}`,
      demo.st_token,
    );
    expect((json.usage as { total: number }).total).toBe(energies.reduce((a, b) => a + b, 0));
  }, 120_000);
});
