import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLyricsSwapEngine, type LyricsSwapEngine, SINGERS } from '../../lib/engines/lyrics-swap';
import { kuromojiLoads } from '../../lib/engines/lyrics-swap/kuromoji-reader';
import { parseSongScore } from '../../lib/engines/lyrics-swap/songs';
import { runError } from './support/requests';
import { decodeWav } from './support/wav';

const EXAMPLE = { lyrics: ['something like you', 'all about you'], bgm_index: 0, model_version: 'v1' };
const CONTEXT = { uuid: '0f6d3c1e-8d9a-4a53-9a51-3c1f0d6a4b21', tid: 'tid-1' };

interface DecodedWav {
  readonly channels: number;
  readonly sampleRate: number;
  readonly bitsPerSample: number;
  readonly audioFormat: number;
  readonly dataBytes: number;
  readonly fileBytes: number;
  readonly peak: number;
}

/** Parses a WAV data URL by hand (independent of the encoder). */
function decodeDataUrl(url: unknown): DecodedWav {
  expect(typeof url).toBe('string');
  const text = String(url);
  expect(text.startsWith('data:audio/wav;base64,')).toBe(true);
  const bytes = Buffer.from(text.slice('data:audio/wav;base64,'.length), 'base64');
  const tag = (offset: number) => bytes.toString('latin1', offset, offset + 4);
  expect(tag(0)).toBe('RIFF');
  expect(tag(8)).toBe('WAVE');
  expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
  const audio = decodeWav(bytes);
  const channels = audio.channels.length;
  let peak = 0;
  for (const channel of audio.channels)
    for (const value of channel) peak = Math.max(peak, Math.abs(value * 32768));
  return {
    audioFormat: audio.audioFormat,
    channels,
    sampleRate: audio.sampleRate,
    bitsPerSample: audio.bitsPerSample,
    dataBytes: (audio.channels[0]?.length ?? 0) * channels * 2,
    fileBytes: bytes.length,
    peak,
  };
}

describe('lyrics-swap engine with hikari', () => {
  const engine = createLyricsSwapEngine({ singer: SINGERS.hikari });
  let output: Awaited<ReturnType<LyricsSwapEngine['run']>>;

  beforeAll(async () => {
    output = await engine.run(EXAMPLE, CONTEXT);
  });

  it('describes itself', () => {
    expect(engine.kind).toBe('lyrics-swap');
    expect(engine.singer.id).toBe('hikari');
    expect(engine.modelVersions).toEqual(['v1', 'v2']);
  });

  it('has a strict request schema with defaults and descriptions', () => {
    const validate = new Ajv({ useDefaults: true, strict: true }).compile(engine.requestSchema);
    const body: Record<string, unknown> = { lyrics: ['あ'] };
    expect(validate(body)).toBe(true);
    expect(body).toEqual({ lyrics: ['あ'], bgm_index: 0, model_version: 'v2' });
    expect(validate({ lyrics: ['a'], extra: 1 })).toBe(false);
    expect(validate({ lyrics: [] })).toBe(false);
    expect(validate({ lyrics: ['a'.repeat(201)] })).toBe(false);
    expect(validate({ lyrics: ['a'], bgm_index: 1.5 })).toBe(false);
    const properties = engine.requestSchema.properties as Record<string, { description?: string }>;
    for (const name of ['lyrics', 'bgm_index', 'model_version'])
      expect(properties[name]?.description).toBeTruthy();
  });

  it('sings the spec example: result fields and Japanese-mora labels', () => {
    const { result } = output;
    expect(result).toMatchObject({ code: '0000', message: 'SUCCESS', uuid: CONTEXT.uuid });
    expect(result.lyrics).toEqual(['SP sa mu shi n gu ra i ku yu SP', 'SP o ru a ba u to yu SP']);
  });

  it('returns a 16-bit PCM WAV whose size matches the reported format, peak ≤ −1 dBFS', () => {
    const wav = decodeDataUrl(output.result.mix_data_url);
    const audio = output.refs.audio as Record<string, number>;
    expect(wav).toMatchObject({ audioFormat: 1, channels: 2, sampleRate: 44_100, bitsPerSample: 16 });
    expect(audio).toMatchObject({
      sample_rate: 44_100,
      channels: 2,
      bits_per_sample: 16,
      bytes: wav.fileBytes,
    });
    expect(wav.dataBytes / (wav.channels * 2 * wav.sampleRate)).toBeCloseTo(audio.duration_seconds ?? 0, 3);
    expect(20 * Math.log10(wav.peak / 32768)).toBeLessThanOrEqual(-1);
    expect(wav.peak).toBeGreaterThan(20_000);
  });

  it('reports duration = the sung span of the alignment, and bills the same', () => {
    const alignment = output.refs.alignment as {
      start: number;
      duration: number;
      syllable: string;
      midi: number;
    }[][];
    expect(alignment).toHaveLength(2);
    expect(alignment[0]?.map((note) => note.syllable)).toEqual([
      'sa',
      'mu',
      'shi',
      'n',
      'gu',
      'ra',
      'i',
      'ku',
      'yu',
    ]);
    const notes = alignment.flat();
    const span = Math.max(...notes.map((n) => n.start + n.duration)) - Math.min(...notes.map((n) => n.start));
    expect(output.result.duration).toBeCloseTo(span, 2);
    expect(output.result.duration).toBe(9.6);
    expect(output.measures.durationSeconds).toBe(output.result.duration);
    const audio = output.refs.audio as Record<string, number>;
    expect(audio.duration_seconds).toBeGreaterThan(span + 0.5);
    expect(audio.duration_seconds).toBeLessThan(span + 1.5);
  });

  it('reports how the result was made', () => {
    expect(output.refs).toMatchObject({
      engine: 'lyrics-swap',
      tid: CONTEXT.tid,
      singer: { id: 'hikari', name: 'Hikari', language: 'ja', voice: 'soprano' },
      model_version: 'v1',
      song: {
        index: 0,
        id: 'twinkle',
        title: 'Twinkle Twinkle Little Star',
        tempo_bpm: 100,
        transpose_semitones: 5,
      },
    });
    const timings = output.refs.timings_ms as Record<string, number>;
    expect(Object.keys(timings).sort()).toEqual(['alignment', 'encode', 'labels', 'mix', 'synthesis']);
  });

  it('renders the same bytes for the same input, and does not load kuromoji for kana or English', async () => {
    const again = await engine.run(EXAMPLE, { uuid: 'other', tid: 'other' });
    expect(again.result.mix_data_url).toBe(output.result.mix_data_url);
    expect(kuromojiLoads()).toEqual([]);
  });

  it('reads kanji lines with kuromoji', async () => {
    const { result } = await engine.run(
      { lyrics: ['明日への道'], bgm_index: 1, model_version: 'v1' },
      CONTEXT,
    );
    expect(result.lyrics).toEqual(['SP a shi ta he n o mi chi SP']);
    expect(kuromojiLoads()).toHaveLength(1);
  });
});

describe('lyrics-swap engine errors', () => {
  const engine = createLyricsSwapEngine({ singer: SINGERS.hikari });

  it('refuses an unknown model_version, naming the available ones', async () => {
    const error = await runError(engine, { ...EXAMPLE, model_version: 'v9' }, CONTEXT);
    expect(error.code).toBe('unsupportedOption');
    expect(error.message).toBe('model_version "v9" is not available for this engine; use one of: v1, v2');
  });

  it('refuses an unknown bgm_index, naming the valid range and the songs', async () => {
    const error = await runError(engine, { ...EXAMPLE, bgm_index: 7 }, CONTEXT);
    expect(error.code).toBe('unsupportedOption');
    expect(error.message).toContain('use 0–4');
    expect(error.message).toContain('Twinkle Twinkle Little Star');
    expect(error.message).toContain('Frère Jacques');
  });

  it('refuses more lines than the song has phrases, stating the phrase count', async () => {
    const error = await runError(
      engine,
      {
        lyrics: ['あ', 'い', 'う', 'え', 'お'],
        bgm_index: 1,
        model_version: 'v1',
      },
      CONTEXT,
    );
    expect(error.code).toBe('unsupportedLyrics');
    expect(error.message).toContain('has 4 phrases');
  });

  it('refuses characters the singer cannot sing, naming them and the line', async () => {
    const error = await runError(
      engine,
      {
        lyrics: ['あいう', 'かき123'],
        bgm_index: 0,
        model_version: 'v1',
      },
      CONTEXT,
    );
    expect(error.code).toBe('unsupportedLyrics');
    expect(error.message).toContain('Line 2');
    expect(error.message).toContain('"1"');
    expect(error.details).toMatchObject({ line: 2, characters: ['1', '2', '3'] });
  });

  it('refuses a line with no singable syllables', async () => {
    const error = await runError(engine, { lyrics: ['！？…'], bgm_index: 0, model_version: 'v1' }, CONTEXT);
    expect(error.code).toBe('unsupportedLyrics');
    expect(error.message).toContain('no singable syllables');
    expect(error.message).toContain('Hikari sings');
  });

  it('refuses a line with more syllables than its phrase can carry', async () => {
    const error = await runError(
      engine,
      { lyrics: ['あ'.repeat(40)], bgm_index: 0, model_version: 'v1' },
      CONTEXT,
    );
    expect(error.code).toBe('unsupportedLyrics');
    expect(error.message).toContain('at most 32');
  });

  it('refuses, before rendering, a result that would not fit the 6 MB response', async () => {
    // A slow chant: one phrase of 64 whole notes at 40 bpm is 96 s, longer than 24 kHz mono can carry.
    const chant = parseSongScore({
      id: 'long-chant',
      title: 'Long Chant',
      source: 'Synthetic test score, written for this test.',
      license: 'public-domain',
      lang: 'ja',
      bpm: 40,
      time: [4, 4],
      key: 'C',
      pickup: 0,
      range: [60, 60],
      phrases: [{ notes: Array.from({ length: 16 }, () => [60, 4]), rest: 0 }],
      chords: [['C', 64]],
    });
    const long = createLyricsSwapEngine({ singer: SINGERS.hikari, songs: [chant] });
    const started = performance.now();
    const error = await runError(
      long,
      { lyrics: ['あいうえお'], bgm_index: 0, model_version: 'v1' },
      CONTEXT,
    );
    expect(error.code).toBe('resultTooLarge');
    expect(error.message).toContain('6 MB');
    expect(error.message).toContain('85.9 s');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses Japanese for the English singer', async () => {
    const leo = createLyricsSwapEngine({ singer: SINGERS.leo });
    const error = await runError(leo, { lyrics: ['さくら'], bgm_index: 0, model_version: 'v1' }, CONTEXT);
    expect(error.code).toBe('unsupportedLyrics');
    expect(error.message).toContain('"さ"');
  });
});

describe('lyrics-swap engine with leo', () => {
  it('sings English syllables', async () => {
    const engine = createLyricsSwapEngine({ singer: SINGERS.leo });
    const { result, refs } = await engine.run(EXAMPLE, CONTEXT);
    expect(result.lyrics).toEqual(['SP some thing like you SP', 'SP all a bout you SP']);
    expect(refs.song).toMatchObject({ transpose_semitones: -7, key: 'F' });
    const notes = (refs.alignment as { midi: number }[][]).flat();
    for (const note of notes) {
      expect(note.midi).toBeGreaterThanOrEqual(SINGERS.leo.rangeMidi[0]);
      expect(note.midi).toBeLessThanOrEqual(SINGERS.leo.rangeMidi[1]);
    }
  });

  it('falls back to mono when stereo would not fit (Ode to Joy, all four lines)', async () => {
    const engine = createLyricsSwapEngine({ singer: SINGERS.leo });
    const lines = ['joyful joyful', 'we adore thee', 'hearts unfold like', 'flowers before thee'];
    const { result, refs } = await engine.run({ lyrics: lines, bgm_index: 1, model_version: 'v1' }, CONTEXT);
    const wav = decodeDataUrl(result.mix_data_url);
    expect(wav).toMatchObject({ channels: 1, sampleRate: 44_100 });
    expect(refs.audio).toMatchObject({ channels: 1, bytes: wav.fileBytes });
    expect(String(result.mix_data_url).length).toBeLessThanOrEqual(5_500_000);
  });
});
