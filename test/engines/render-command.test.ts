import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lyricLines, main, renderToDirectory } from '../../lib/engines/lyrics-swap/render-command';
import { NotFoundError } from '../../lib/errors';
import { decodeWav } from './support/wav';

const MINJI = '5A22C6DFE641404096876E9928EA1294.minji';

describe('render command', () => {
  let dir: string;
  let lyricsFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'render-command-'));
    lyricsFile = join(dir, 'lyrics.txt');
    await writeFile(lyricsFile, '\uFEFF아리랑 아리랑\r\n\r\n아라리요\n');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads one lyric line per line, skipping blank lines and a byte-order mark', () => {
    expect(lyricLines('\uFEFFa\r\n\r\n  b  \n')).toEqual(['a', 'b']);
  });

  it('writes mix.wav, vocal.wav (same timeline) and the invoke response body without the data URL', async () => {
    const out = join(dir, 'out');
    const outcome = await renderToDirectory({ engine: MINJI, lyricsFile, out, bgm: 4 });
    const body = JSON.parse(await readFile(outcome.resultPath, 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(body.result).toMatchObject({
      code: '0000',
      lyrics: ['SP a ri rang a ri rang SP', 'SP a ra ri yo SP'],
    });
    expect(body.result).not.toHaveProperty('mix_data_url');
    expect(body.refs).toMatchObject({ engine_id: MINJI, model_version: 'v2', song: { index: 4 } });
    expect(body.usage).toEqual(body.usages);
    const mix = decodeWav(await readFile(outcome.mixPath));
    const vocal = decodeWav(await readFile(outcome.vocalPath));
    expect(vocal.channels).toHaveLength(1);
    expect(vocal.sampleRate).toBe(mix.sampleRate);
    expect(vocal.channels[0]?.length).toBe(mix.channels[0]?.length);
  });

  it('refuses what the API refuses, with exit code 2', async () => {
    await expect(
      renderToDirectory({ engine: '5A22C6DFE641404096876E9928EA1294.nobody', lyricsFile, out: dir }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const code = await main([
      'node',
      'render',
      '--engine',
      MINJI,
      '--lyrics-file',
      lyricsFile,
      '--model',
      'v1',
      '--out',
      dir,
    ]);
    expect(code).toBe(2);
  });
});
