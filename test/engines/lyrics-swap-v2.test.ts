import { beforeAll, describe, expect, it } from 'vitest';
import { createLyricsSwapEngine, type LyricsSwapRender, SINGERS } from '../../lib/engines/lyrics-swap';
import { integratedLoudness, truePeakDb } from '../../lib/engines/lyrics-swap/loudness';
import { truePeakOversampled } from './support/measure';
import { EIGHT_LINES_EN, runError } from './support/requests';
import { type DecodedAudio, dataUrlBytes, decodeWav } from './support/wav';

const CONTEXT = { uuid: '6f1d1d3e-0c53-4d7e-9b7f-5a1c2b3d4e5f', tid: 'tid-v2' };
/** The spec's example body without `model_version`: the newest model sings it. */
const EXAMPLE = { lyrics: ['something like you', 'all about you'], bgm_index: 0 };
const KOREAN = ['아리랑 아리랑 아라리요', '아리랑 고개로 넘어간다'];

/** Mix loudness bars (ITU-R BS.1770-4): −14 LUFS ± 1 LU, true peak ≤ −1 dBTP. */
function expectMastered(audio: DecodedAudio): void {
  const loudness = integratedLoudness(audio.channels, audio.sampleRate);
  expect(loudness).toBeGreaterThanOrEqual(-15);
  expect(loudness).toBeLessThanOrEqual(-13);
  expect(truePeakDb(audio.channels)).toBeLessThanOrEqual(-1);
  expect(truePeakOversampled(audio.channels)).toBeLessThanOrEqual(-1);
}

/** Loudness of the vocal stem and of the rest of the mix (mix − vocal), LUFS. */
function stemLoudness(render: LyricsSwapRender): { vocal: number; band: number } {
  const mix = decodeWav(render.mixWav);
  const vocal = decodeWav(render.vocalWav).channels[0] ?? new Float32Array(0);
  const band = mix.channels.map((channel) =>
    Float32Array.from(channel, (value, n) => value - (vocal[n] ?? 0)),
  );
  return {
    vocal: integratedLoudness(
      mix.channels.map(() => vocal),
      mix.sampleRate,
    ),
    band: integratedLoudness(band, mix.sampleRate),
  };
}

describe('lyrics-swap v2 with hikari (the newest model is the default)', () => {
  const engine = createLyricsSwapEngine({ singer: SINGERS.hikari });
  let render: LyricsSwapRender;

  beforeAll(async () => {
    render = await engine.render(EXAMPLE, CONTEXT);
  });

  it('sings the spec example as Japanese morae with long vowels (you → yu u)', () => {
    expect(render.output.result.lyrics).toEqual([
      'SP sa mu shi n gu ra i ku yu u SP',
      'SP o o ru a ba u to yu u SP',
    ]);
    expect(render.output.refs).toMatchObject({
      model_version: 'v2',
      singer: { id: 'hikari', range_midi: [60, 79] },
    });
  });

  it('masters the mix to −14 LUFS ± 1 LU with true peak ≤ −1 dBTP, and reports it', () => {
    const audio = decodeWav(dataUrlBytes(render.output.result.mix_data_url));
    expect(audio).toMatchObject({ sampleRate: 44_100, bitsPerSample: 16, audioFormat: 1 });
    expect(audio.channels).toHaveLength(2);
    expectMastered(audio);
    const reported = render.output.refs.audio as Record<string, number>;
    expect(reported.integrated_lufs).toBeCloseTo(integratedLoudness(audio.channels, audio.sampleRate), 1);
    expect(reported.true_peak_dbtp).toBeLessThanOrEqual(-1);
  });

  it('puts the vocal clearly over the instrumental (≥ 4 LU louder), stem on the same timeline', () => {
    const stems = stemLoudness(render);
    expect(stems.vocal - stems.band).toBeGreaterThanOrEqual(4);
    expect(decodeWav(render.vocalWav).channels[0]?.length).toBe(decodeWav(render.mixWav).channels[0]?.length);
  });

  it('renders the same bytes for the same input', async () => {
    const again = await engine.run(EXAMPLE, { uuid: 'other', tid: 'other' });
    expect(again.result.mix_data_url).toBe(render.output.result.mix_data_url);
  });
});

describe('lyrics-swap v2 with leo', () => {
  it('sings a 40-syllable, 8-line request on Frère Jacques, mastered', async () => {
    const engine = createLyricsSwapEngine({ singer: SINGERS.leo });
    const { result, refs } = await engine.run({ lyrics: EIGHT_LINES_EN, bgm_index: 4 }, CONTEXT);
    const lines = result.lyrics as string[];
    expect(lines).toHaveLength(8);
    expect(lines.reduce((sum, line) => sum + line.split(' ').length - 2, 0)).toBe(40);
    expect(refs.song).toMatchObject({ id: 'frere-jacques', title: 'Frère Jacques' });
    const alignment = refs.alignment as { syllable: string; start: number; duration: number }[][];
    expect(alignment.flat().every((note) => note.duration >= 0.11 - 1e-9)).toBe(true);
    expectMastered(decodeWav(dataUrlBytes(result.mix_data_url)));
  });
});

describe('lyrics-swap v2 with minji (Korean)', () => {
  const engine = createLyricsSwapEngine({ singer: SINGERS.minji });

  it('offers only v2 and sings Hangul as romanized syllables, mastered', async () => {
    expect(engine.modelVersions).toEqual(['v2']);
    const { result, refs } = await engine.run({ lyrics: KOREAN }, CONTEXT);
    expect(result.lyrics).toEqual([
      'SP a ri rang a ri rang a ra ri yo SP',
      'SP a ri rang go gae ro neo meo gan tta SP',
    ]);
    expect(refs).toMatchObject({
      model_version: 'v2',
      singer: { id: 'minji', language: 'ko', voice: 'alto' },
    });
    expectMastered(decodeWav(dataUrlBytes(result.mix_data_url)));
  });

  it('refuses v1, which cannot sing Korean, naming the versions it offers', async () => {
    const error = await runError(engine, { lyrics: KOREAN, model_version: 'v1' }, CONTEXT);
    expect(error.code).toBe('unsupportedOption');
    expect(error.message).toBe('model_version "v1" is not available for this engine; use one of: v2');
  });

  it('refuses characters it cannot sing, naming them', async () => {
    const error = await runError(engine, { lyrics: ['사랑 love', 'さくら'] }, CONTEXT);
    expect(error.code).toBe('unsupportedLyrics');
    expect(error.message).toContain('Line 1');
    expect(error.message).toContain('"l" (U+006C)');
    expect(error.details).toMatchObject({ line: 1, characters: ['l', 'o', 'v', 'e'] });
  });
});
