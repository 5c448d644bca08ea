/**
 * Offline render command: runs the same lyrics-swap engine the API runs (the engine id is resolved by
 * the {@link EngineCatalog}, the body is validated against the engine's JSON Schema with its defaults)
 * and writes the mix, the vocal stem and the invoke response body.
 *
 * Usage: npm run render -- --engine <id> --lyrics-file <file> [--bgm <n>] [--model <version>] --out <dir>
 *
 * Writes `<dir>/mix.wav` (the result's WAV), `<dir>/vocal.wav` (the vocal alone, mono, same timeline and
 * gain as in the mix) and `<dir>/result.json` (the Engine.Invoke response body with `refs`, without
 * `mix_data_url`). Exit codes: 0 done, 2 the request cannot be served (the API's 4xx), 1 anything else.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { NotFoundError, ValidationError } from '../../errors';
import { EngineCatalog } from '../catalog';
import { validateEngineRequest } from '../request-validation';
import { createLyricsSwapEngine } from './lyrics-swap-engine';

/** Parsed command-line options. */
export interface RenderOptions {
  readonly engine: string;
  readonly lyricsFile: string;
  readonly bgm?: number | undefined;
  readonly model?: string | undefined;
  readonly out: string;
}

/** What a render wrote. */
export interface RenderOutcome {
  readonly mixPath: string;
  readonly vocalPath: string;
  readonly resultPath: string;
  /** The response body written to `result.json`. */
  readonly body: Record<string, unknown>;
  /** One line for the terminal: duration, format, loudness. */
  readonly summary: string;
}

/**
 * Lyric lines of a file: one line per lyric line, UTF-8 (a byte-order mark is ignored), blank lines skipped.
 */
export function lyricLines(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/**
 * Renders one request and writes the three files.
 * @param catalog - the engine catalog (default: a new one, as the API builds it)
 * @throws ValidationError / NotFoundError as the API would answer 4xx (bad id, body, lyrics, options)
 */
export async function renderToDirectory(
  options: RenderOptions,
  catalog: EngineCatalog = new EngineCatalog(),
): Promise<RenderOutcome> {
  const { entry } = catalog.get(options.engine);
  const engine = createLyricsSwapEngine({ singer: entry.singer });
  const body: Record<string, unknown> = { lyrics: lyricLines(await readFile(options.lyricsFile, 'utf8')) };
  if (options.bgm !== undefined) body.bgm_index = options.bgm;
  if (options.model !== undefined) body.model_version = options.model;
  const input = validateEngineRequest(engine, body);
  const tid = `render-${randomUUID()}`;
  const rendered = await engine.render(input, { uuid: randomUUID(), tid });
  const energy = entry.pricing(rendered.output.measures);
  const usage = {
    energy: { ...energy, total: energy.request + energy.response + energy.service },
  };
  const { mix_data_url: _dataUrl, ...result } = rendered.output.result;
  const responseBody = {
    usage,
    usages: usage,
    result,
    refs: { engine_id: entry.engineId, tid, ...rendered.output.refs },
  };
  await mkdir(options.out, { recursive: true });
  const mixPath = join(options.out, 'mix.wav');
  const vocalPath = join(options.out, 'vocal.wav');
  const resultPath = join(options.out, 'result.json');
  await writeFile(mixPath, rendered.mixWav);
  await writeFile(vocalPath, rendered.vocalWav);
  await writeFile(resultPath, `${JSON.stringify(responseBody, null, 2)}\n`);
  const audio = rendered.output.refs.audio;
  const facts = typeof audio === 'object' && audio !== null ? Object.entries(audio) : [];
  const fact = (key: string): string => String(facts.find(([name]) => name === key)?.[1] ?? '–');
  const summary = `duration ${String(result.duration)} s; ${fact('sample_rate')} Hz × ${fact('channels')}; ${fact('integrated_lufs')} LUFS; ${fact('true_peak_dbtp')} dBTP`;
  return { mixPath, vocalPath, resultPath, body: responseBody, summary };
}

function parseIndex(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
}

/** Parses `argv` and runs; the process exit code says how it went. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command()
    .name('render')
    .description('Render lyrics with a lyrics-swap engine, as the API would: mix.wav, vocal.wav, result.json')
    .requiredOption('--engine <id>', 'engine id, e.g. 5A22C6DFE641404096876E9928EA1294.hikari')
    .requiredOption('--lyrics-file <file>', 'UTF-8 text file, one lyric line per line')
    .option('--bgm <n>', 'bgm_index: the song (default 0)', parseIndex)
    .option('--model <version>', 'model_version (default: the newest the singer offers)')
    .requiredOption('--out <dir>', 'output directory (created if missing)')
    .exitOverride();
  try {
    program.parse([...argv], { from: 'node' });
  } catch (error) {
    return error instanceof Error && 'exitCode' in error && error.exitCode === 0 ? 0 : 2;
  }
  const opts = program.opts<{
    engine: string;
    lyricsFile: string;
    bgm?: number;
    model?: string;
    out: string;
  }>();
  try {
    const outcome = await renderToDirectory(opts);
    process.stdout.write(
      `${outcome.mixPath}\n${outcome.vocalPath}\n${outcome.resultPath}\n${outcome.summary}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ValidationError || error instanceof NotFoundError) {
      process.stderr.write(`render: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(
      `render: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv);
}
