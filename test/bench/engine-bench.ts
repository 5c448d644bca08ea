/**
 * Lyrics-swap engine benchmark (not a test): render time and real-time factor (render time ÷ mix
 * length) for the spec's example body and a ≈20 s result per singer, and kuromoji's start-up on its own.
 *
 * Run: npx tsx test/bench/engine-bench.ts
 */
import { performance } from 'node:perf_hooks';
import {
  createLyricsSwapEngine,
  type LyricsSwapEngine,
  SINGERS,
  type SingerPreset,
} from '../../lib/engines/lyrics-swap';
import { createKuromojiReader } from '../../lib/engines/lyrics-swap/kuromoji-reader';

const RUNS = 5;
const CONTEXT = { uuid: '00000000-0000-4000-8000-000000000000', tid: 'bench' };

const EXAMPLE = { lyrics: ['something like you', 'all about you'], bgm_index: 0, model_version: 'v1' };
const TWENTY_SECONDS: Record<SingerPreset['language'], Record<string, unknown>> = {
  ja: {
    lyrics: ['きらきらひかる', 'おそらのほしよ', 'まばたきしては', 'みんなをみてる'],
    bgm_index: 0,
    model_version: 'v1',
  },
  en: {
    lyrics: [
      'Twinkle twinkle little star',
      'How I wonder what you are',
      'Up above the world so high',
      'Like a diamond in the sky',
    ],
    bgm_index: 0,
    model_version: 'v1',
  },
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function measure(engine: LyricsSwapEngine, body: Record<string, unknown>): Promise<string> {
  const warmUp = performance.now();
  await engine.run(body, CONTEXT);
  const first = performance.now() - warmUp;
  const times: number[] = [];
  let audioSeconds = 0;
  let sung = 0;
  let stages: unknown;
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    const output = await engine.run(body, CONTEXT);
    times.push(performance.now() - start);
    const audio = output.refs.audio as { duration_seconds: number; channels: number; sample_rate: number };
    audioSeconds = audio.duration_seconds;
    sung = Number(output.result.duration);
    stages = { ...(output.refs.timings_ms as object), format: `${audio.sample_rate} Hz × ${audio.channels}` };
  }
  const ms = median(times);
  return `${ms.toFixed(0).padStart(5)} ms  RTF ${(ms / 1000 / audioSeconds).toFixed(4)}  (mix ${audioSeconds.toFixed(2)} s, sung ${sung.toFixed(2)} s; first run ${first.toFixed(0)} ms)  ${JSON.stringify(stages)}`;
}

async function main(): Promise<void> {
  let start = performance.now();
  const reader = createKuromojiReader();
  await reader('明日への道');
  const cold = performance.now() - start;
  start = performance.now();
  await reader('新しい朝が来た');
  const warm = performance.now() - start;
  console.log(
    `kuromoji start-up (first line with kanji): ${cold.toFixed(0)} ms; next line: ${warm.toFixed(2)} ms`,
  );
  console.log(`render time = median of ${RUNS} runs after one warm-up run; RTF = render time / mix length`);

  for (const singer of Object.values(SINGERS)) {
    const engine = createLyricsSwapEngine({ singer });
    console.log(`${singer.id.padEnd(7)} spec example : ${await measure(engine, EXAMPLE)}`);
    console.log(
      `${singer.id.padEnd(7)} ≈20 s result : ${await measure(engine, TWENTY_SECONDS[singer.language])}`,
    );
  }
}

await main();
