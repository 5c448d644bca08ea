/**
 * Benchmark of the local stack (`npm run bench:api`): time from `npm start`'s entry point to the
 * first successful response, then latency of Engine.Invoke with the spec's example body and of
 * Usages.List. Prints figures; asserts nothing.
 *
 * Options (env): `BENCH_INVOKES` (default 20), `BENCH_LISTS` (default 50).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/dynamodb-local';

const EXAMPLE = { lyrics: ['something like you', 'all about you'], bgm_index: 0, model_version: 'v1' };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return `${name}: n=${samples.length} mean=${mean.toFixed(1)} ms p50=${percentile(sorted, 50).toFixed(1)} ms p90=${percentile(sorted, 90).toFixed(1)} ms max=${sorted.at(-1)?.toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'model-engine-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let output = '';
    await new Promise<void>((ready, fail) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on')) ready();
      });
      child.once('exit', (code) => fail(new Error(`stack exited with ${code}`)));
    });
    const listening = performance.now() - started;
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')) as {
      st_token: string;
      app_id: string;
      engine_id: string;
    };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${demo.st_token}` };
    const invoke = async (): Promise<number> => {
      const t0 = performance.now();
      const response = await fetch(`${base}/v1/engines/${demo.engine_id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(EXAMPLE),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`invoke answered ${response.status}`);
      return performance.now() - t0;
    };
    const first = await invoke();
    const firstResponse = performance.now() - started;
    const invokes: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_INVOKES ?? 20); i += 1) invokes.push(await invoke());
    const today = new Date().toISOString().slice(0, 10);
    const lists: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_LISTS ?? 50); i += 1) {
      const t0 = performance.now();
      const response = await fetch(
        `${base}/v1/apps/${demo.app_id}/usages?start=${today}&end=${today}&detail=true&date=true`,
        { headers },
      );
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`usages answered ${response.status}`);
      lists.push(performance.now() - t0);
    }
    console.log(`start → listening: ${listening.toFixed(0)} ms`);
    console.log(
      `start → first invoke response: ${firstResponse.toFixed(0)} ms (first invoke itself ${first.toFixed(0)} ms, cold)`,
    );
    console.log(summary('Engine.Invoke (spec example, warm)', invokes));
    console.log(summary('Usages.List (today, detail+date)', lists));
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
