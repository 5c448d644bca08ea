/**
 * The lyrics-swap engine: lyric lines → labels → alignment on a built-in song → sung vocal (a voice
 * model per `model_version`) → mix over the instrumental → 16-bit WAV data URL (api-notes A, B3, B14).
 */
import { performance } from 'node:perf_hooks';
import { ValidationError } from '../../errors';
import type { Engine, EngineOutput, EngineRunContext, JsonSchema } from '../engine';
import { type AlignedNote, alignPhrase, MIN_PIECE_SECONDS, phraseCapacity } from './alignment';
import { transposeKeyName } from './chords';
import { loadCmuDictionary } from './english-syllables';
import type { MoraOptions } from './english-to-morae';
import { createKuromojiReader } from './kuromoji-reader';
import { analyseLyrics, type LyricsServices } from './lyrics-analysis';
import type { SingerPreset } from './singers';
import { builtInSongs, phraseBeats, type SongScore, transposition } from './songs';
import { labelLine, type SyllabifiedLine } from './syllable';
import { modelsFor, VOICE_MODELS, type VoiceModel } from './voice-models';
import { chooseWavFormat, encodeWav, frameCount, type WavFormat, wavDataUrl } from './wav-format';

/** Silence (and instrumental-free time) before the song's first beat, seconds: room for onsets. */
export const LEAD_IN_SECONDS = 0.5;
/** Instrumental ring-out after the last sung note, seconds. */
export const TAIL_SECONDS = 0.6;
/** Most lines per request (the schema's `maxItems`). */
export const MAX_LINES = 32;
/** Longest line, characters (the schema's `maxLength`). */
export const MAX_LINE_CHARS = 200;

export { VOICE_MODELS, type VoiceModel };

/** The newest model version, the default of `model_version`. */
export const NEWEST_MODEL_VERSION: string = VOICE_MODELS.at(-1)?.version ?? 'v1';

/** The engine's request after schema validation. */
export interface LyricsSwapRequest {
  readonly lyrics: readonly string[];
  readonly bgmIndex: number;
  readonly modelVersion: string;
}

/** Options of {@link createLyricsSwapEngine}. */
export interface LyricsSwapEngineOptions {
  readonly singer: SingerPreset;
  /** kuromoji's IPADIC directory; default = the kuromoji package's `dict/` (resolved only when needed). */
  readonly kuromojiDictDir?: string | undefined;
  /** Songs by `bgm_index`; default the built-in songs (tests inject others). */
  readonly songs?: readonly SongScore[] | undefined;
}

/** What {@link LyricsSwapEngine.render} returns: the engine output plus the audio, for tools. */
export interface LyricsSwapRender {
  readonly output: EngineOutput;
  /** The mix's WAV file bytes (the data URL's content). */
  readonly mixWav: Uint8Array;
  /** The vocal alone at its mix gain, mono 16-bit WAV bytes on the same timeline. */
  readonly vocalWav: Uint8Array;
}

/** A lyrics-swap engine bound to one singer. */
export type LyricsSwapEngine = Engine & {
  readonly singer: SingerPreset;
  /** Accepted `model_version` values, oldest first; the last is the default. */
  readonly modelVersions: readonly string[];
  /**
   * Runs like `run` and also returns the mix and the vocal stem as WAV bytes (the render command).
   * @throws as `run`
   */
  render(input: Readonly<Record<string, unknown>>, context: EngineRunContext): Promise<LyricsSwapRender>;
};

/** Lyrics placed on a song: everything decided before any audio is rendered. */
export interface Arrangement {
  readonly song: SongScore;
  readonly songIndex: number;
  /** Semitones added to the score to fit the singer. */
  readonly transpose: number;
  readonly lines: readonly SyllabifiedLine[];
  /** Per line, per sung note (seconds on the mix timeline). */
  readonly alignment: readonly (readonly AlignedNote[])[];
  /** First sung note start and last sung note end, seconds. */
  readonly sungStart: number;
  readonly sungEnd: number;
  /** The beat where the last sung phrase's notes end. */
  readonly endBeat: number;
  /** Length of the mix, seconds. */
  readonly mixSeconds: number;
}

/**
 * JSON Schema of the request body (Ajv, draft-07) for an engine whose models are `versions` (oldest
 * first); `model_version` defaults to the newest.
 */
export function lyricsSwapRequestSchema(versions: readonly string[]): JsonSchema {
  const newest = versions.at(-1) ?? NEWEST_MODEL_VERSION;
  return {
    type: 'object',
    additionalProperties: false,
    required: ['lyrics'],
    properties: {
      lyrics: {
        description:
          'Lyric lines, one sentence per element; line i is sung on phrase i of the song. Japanese singers read kana, kanji and English words; English singers read English words; Korean singers read Hangul.',
        type: 'array',
        minItems: 1,
        maxItems: MAX_LINES,
        items: { type: 'string', minLength: 1, maxLength: MAX_LINE_CHARS },
      },
      bgm_index: {
        description: `Which built-in song to sing on: ${builtInSongs()
          .map((song, index) => `${index} = ${song.title}`)
          .join(', ')}.`,
        type: 'integer',
        minimum: 0,
        default: 0,
      },
      model_version: {
        description: `Voice model version, default the newest ("${newest}"): ${VOICE_MODELS.filter((model) =>
          versions.includes(model.version),
        )
          .map((model) => `"${model.version}" = ${model.description}`)
          .join('; ')}.`,
        type: 'string',
        minLength: 1,
        maxLength: 32,
        default: newest,
      },
    },
  };
}

/** The request schema of an engine that offers every model (`model_version` defaults to the newest). */
export const LYRICS_SWAP_REQUEST_SCHEMA: JsonSchema = lyricsSwapRequestSchema(
  VOICE_MODELS.map((model) => model.version),
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Narrows a validated body (defaults applied by the caller; applied here too when missing).
 * @param defaultVersion - `model_version` when the body has none (the engine's newest)
 * @throws ValidationError `invalidEngineInput` when the body does not have the schema's shape
 */
export function parseLyricsSwapRequest(
  input: unknown,
  defaultVersion = NEWEST_MODEL_VERSION,
): LyricsSwapRequest {
  const body = isRecord(input) ? input : undefined;
  const lyrics = body?.lyrics;
  const bgmIndex = body?.bgm_index ?? 0;
  const modelVersion = body?.model_version ?? defaultVersion;
  if (
    !Array.isArray(lyrics) ||
    lyrics.length === 0 ||
    !lyrics.every((line): line is string => typeof line === 'string') ||
    typeof bgmIndex !== 'number' ||
    !Number.isInteger(bgmIndex) ||
    typeof modelVersion !== 'string'
  ) {
    throw new ValidationError(
      'invalidEngineInput',
      'The body must be {"lyrics": [string, …], "bgm_index"?: integer ≥ 0, "model_version"?: string}',
    );
  }
  return { lyrics, bgmIndex, modelVersion };
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/**
 * The song for a `bgm_index`.
 * @param songs - the song list (default: the built-in songs)
 * @throws ValidationError `unsupportedOption` naming the valid indices and titles
 */
export function songForIndex(index: number, songs: readonly SongScore[] = builtInSongs()): SongScore {
  const song = songs[index];
  if (song === undefined) {
    const list = songs.map((s, i) => `${i} = "${s.title}"`).join(', ');
    throw new ValidationError(
      'unsupportedOption',
      `bgm_index ${index} is not available; use 0–${songs.length - 1} (${list})`,
      { details: { bgm_index: index, available: songs.map((s, i) => ({ index: i, title: s.title })) } },
    );
  }
  return song;
}

/**
 * The voice model of a `model_version`.
 * @param singer - when given, only the models that sing the singer's language are accepted
 * @throws ValidationError `unsupportedOption` listing the versions available
 */
export function voiceModel(version: string, singer?: SingerPreset): VoiceModel {
  const models = singer === undefined ? [...VOICE_MODELS] : modelsFor(singer);
  const model = models.find((candidate) => candidate.version === version);
  if (model === undefined) {
    const versions = models.map((m) => m.version);
    throw new ValidationError(
      'unsupportedOption',
      `model_version "${version.slice(0, 40)}" is not available for this engine; use one of: ${versions.join(', ')}`,
      { details: { model_version: version, available: versions } },
    );
  }
  return model;
}

/** Who sings, with which text services, on which songs. */
export interface ArrangeContext {
  readonly singer: SingerPreset;
  readonly services: LyricsServices;
  /** Songs by `bgm_index`; default the built-in songs. */
  readonly songs?: readonly SongScore[] | undefined;
  /** The voice model's text rules (English words as morae); default those of the newest model. */
  readonly moraOptions?: MoraOptions | undefined;
}

/**
 * Places lyrics on a song: labels, transposition, alignment, timeline. Renders nothing.
 * @param timings - when given, receives the labels and alignment stage times, ms
 * @throws ValidationError `unsupportedOption` (bgm_index), `unsupportedLyrics` (too many lines for the song,
 *   unsingable text, a line with more syllables than its phrase can carry)
 */
export async function arrangeLyrics(
  lyrics: readonly string[],
  bgmIndex: number,
  context: ArrangeContext,
  timings?: { labels: number; alignment: number },
): Promise<Arrangement> {
  const { singer, services } = context;
  const song = songForIndex(bgmIndex, context.songs);
  if (lyrics.length > song.phrases.length) {
    throw new ValidationError(
      'unsupportedLyrics',
      `"${song.title}" (bgm_index ${bgmIndex}) has ${song.phrases.length} phrases, so at most ${song.phrases.length} lyric lines can be sung on it; got ${lyrics.length}.`,
      { details: { lines: lyrics.length, max_lines: song.phrases.length } },
    );
  }
  let clock = performance.now();
  const moraOptions = context.moraOptions ?? VOICE_MODELS.at(-1)?.moraOptions ?? {};
  const lines = await analyseLyrics(lyrics, singer, services, moraOptions);
  if (timings !== undefined) timings.labels = performance.now() - clock;
  clock = performance.now();

  const transpose = transposition(song.range, singer.rangeMidi);
  const secondsPerBeat = 60 / song.bpm;
  const bar = song.time[0];
  const alignment: AlignedNote[][] = [];
  let phraseStart = 0;
  let endBeat = 0;
  lines.forEach((line, index) => {
    const phrase = song.phrases[index];
    if (phrase === undefined) return;
    const capacity = phraseCapacity(phrase.notes, song.bpm);
    if (line.syllables.length > capacity) {
      throw new ValidationError(
        'unsupportedLyrics',
        `Line ${index + 1} has ${line.syllables.length} syllables, but phrase ${index + 1} of "${song.title}" can carry at most ${capacity} (notes are not split below ${Math.round(MIN_PIECE_SECONDS * 1000)} ms); shorten the line.`,
        { details: { line: index + 1, syllables: line.syllables.length, max_syllables: capacity } },
      );
    }
    alignment.push(
      alignPhrase({
        syllables: line.syllables,
        notes: phrase.notes.map(([midi, beats]) => [midi > 0 ? midi + transpose : 0, beats] as const),
        bpm: song.bpm,
        beatsPerBar: bar,
        barOffsetBeats: (((phraseStart - song.pickup) % bar) + bar) % bar,
        startSeconds: LEAD_IN_SECONDS + phraseStart * secondsPerBeat,
      }),
    );
    endBeat = phraseStart + phraseBeats(phrase) - phrase.rest;
    phraseStart += phraseBeats(phrase);
  });
  const notes = alignment.flat();
  const sungStart = Math.min(...notes.map((note) => note.start));
  const sungEnd = Math.max(...notes.map((note) => note.start + note.duration));
  if (timings !== undefined) timings.alignment = performance.now() - clock;
  return {
    song,
    songIndex: bgmIndex,
    transpose,
    lines,
    alignment,
    sungStart,
    sungEnd,
    endBeat,
    mixSeconds: LEAD_IN_SECONDS + endBeat * secondsPerBeat + TAIL_SECONDS,
  };
}

/**
 * Renders the vocal stem of an arrangement (no instrumental, not normalised).
 * @param model - the voice model (default: the newest)
 * @returns mono samples covering the whole mix timeline (`frameCount(mixSeconds, sampleRate)`)
 */
export function renderVocalStem(
  arrangement: Arrangement,
  singer: SingerPreset,
  sampleRate: number,
  model: VoiceModel = voiceModel(NEWEST_MODEL_VERSION),
): Float32Array {
  return model.renderVocal(
    arrangement.lines.map((line, index) => ({
      syllables: line.syllables,
      notes: arrangement.alignment[index] ?? [],
    })),
    singer,
    sampleRate,
    frameCount(arrangement.mixSeconds, sampleRate),
  );
}

/**
 * Sings lyrics without the instrumental: the lower-level entry for tests and tools.
 * @param options.modelVersion - voice model (default: the newest the singer supports)
 * @returns the vocal samples, their rate and the alignment (seconds on the same timeline)
 * @throws ValidationError as {@link arrangeLyrics} and {@link voiceModel}
 */
export async function singVocalStem(
  lyrics: readonly string[],
  options: {
    singer: SingerPreset;
    bgmIndex?: number;
    sampleRate?: number;
    kuromojiDictDir?: string;
    songs?: readonly SongScore[];
    modelVersion?: string;
  },
): Promise<{ samples: Float32Array; sampleRate: number; arrangement: Arrangement }> {
  const sampleRate = options.sampleRate ?? 44_100;
  const services: LyricsServices = {
    readKanji: createKuromojiReader(options.kuromojiDictDir),
    pronouncer: loadCmuDictionary,
  };
  const model = voiceModel(
    options.modelVersion ?? modelsFor(options.singer).at(-1)?.version ?? NEWEST_MODEL_VERSION,
    options.singer,
  );
  const arrangement = await arrangeLyrics(lyrics, options.bgmIndex ?? 0, {
    singer: options.singer,
    services,
    songs: options.songs,
    moraOptions: model.moraOptions,
  });
  return {
    samples: renderVocalStem(arrangement, options.singer, sampleRate, model),
    sampleRate,
    arrangement,
  };
}

function singerRef(singer: SingerPreset): Record<string, unknown> {
  return {
    id: singer.id,
    name: singer.displayName,
    language: singer.language,
    voice: singer.voice,
    range_midi: [...singer.rangeMidi],
  };
}

function monoWav(pcm: Int16Array, sampleRate: number): Uint8Array {
  return encodeWav([pcm], sampleRate);
}

/**
 * Builds the lyrics-swap engine for one singer.
 * @returns an {@link Engine} whose `run` throws ValidationError `unsupportedOption` (model_version,
 *   bgm_index), `unsupportedLyrics` (too many lines, unsingable text, too many syllables for a phrase) or
 *   `resultTooLarge` (the mix would not fit the 6 MB response), all before rendering
 */
export function createLyricsSwapEngine(options: LyricsSwapEngineOptions): LyricsSwapEngine {
  const { singer } = options;
  const services: LyricsServices = {
    readKanji: createKuromojiReader(options.kuromojiDictDir),
    pronouncer: loadCmuDictionary,
  };
  const modelVersions = modelsFor(singer).map((model) => model.version);
  const defaultVersion = modelVersions.at(-1) ?? NEWEST_MODEL_VERSION;

  async function execute(
    input: Readonly<Record<string, unknown>>,
    context: EngineRunContext,
    withStems: boolean,
  ): Promise<{ output: EngineOutput; wav: Uint8Array; vocal: Int16Array | undefined; format: WavFormat }> {
    const request = parseLyricsSwapRequest(input, defaultVersion);
    const model = voiceModel(request.modelVersion, singer);
    const timings = { labels: 0, alignment: 0, synthesis: 0, mix: 0, encode: 0 };
    const arrangement = await arrangeLyrics(
      request.lyrics,
      request.bgmIndex,
      { singer, services, songs: options.songs, moraOptions: model.moraOptions },
      timings,
    );
    const format: WavFormat = chooseWavFormat(arrangement.mixSeconds);

    let clock = performance.now();
    const vocal = renderVocalStem(arrangement, singer, format.sampleRate, model);
    timings.synthesis = performance.now() - clock;

    clock = performance.now();
    const mixed = model.mix(
      vocal,
      {
        song: arrangement.song,
        transpose: arrangement.transpose,
        startSeconds: LEAD_IN_SECONDS,
        endBeat: arrangement.endBeat,
        tailSeconds: TAIL_SECONDS,
        vocalLowMidi: Math.min(...arrangement.alignment.flat().map((note) => note.midi)),
      },
      singer,
      format,
      withStems,
    );
    timings.mix = performance.now() - clock;

    clock = performance.now();
    const wav = encodeWav(mixed.channels, format.sampleRate);
    const dataUrl = wavDataUrl(wav);
    timings.encode = performance.now() - clock;

    const duration = round(arrangement.sungEnd - arrangement.sungStart, 2);
    const { song } = arrangement;
    const loudness = mixed.loudness;
    const output: EngineOutput = {
      result: {
        code: '0000',
        message: 'SUCCESS',
        duration,
        lyrics: arrangement.lines.map((line) => labelLine(line.labels)),
        mix_data_url: dataUrl,
        uuid: context.uuid,
      },
      refs: {
        engine: 'lyrics-swap',
        tid: context.tid,
        singer: singerRef(singer),
        model_version: model.version,
        song: {
          index: arrangement.songIndex,
          id: song.id,
          title: song.title,
          tempo_bpm: song.bpm,
          key: transposeKeyName(song.key, arrangement.transpose),
          original_key: song.key,
          transpose_semitones: arrangement.transpose,
        },
        alignment: arrangement.alignment.map((line) =>
          line.map((note) => ({
            syllable: note.syllable,
            midi: note.midi,
            start: round(note.start, 3),
            duration: round(note.duration, 3),
          })),
        ),
        audio: {
          sample_rate: format.sampleRate,
          channels: format.channels,
          bits_per_sample: format.bitsPerSample,
          bytes: wav.byteLength,
          duration_seconds: round(vocal.length / format.sampleRate, 3),
          ...(loudness === undefined
            ? {}
            : {
                integrated_lufs: round(loudness.integratedLufs, 2),
                true_peak_dbtp: round(loudness.truePeakDbtp, 2),
                vocal_over_instrumental_lu: round(loudness.vocalOverInstrumentalLu, 1),
              }),
        },
        timings_ms: Object.fromEntries(Object.entries(timings).map(([stage, ms]) => [stage, round(ms, 1)])),
      },
      // Billing is floor(durationSeconds): use the rounded value so it matches floor(result.duration).
      measures: { durationSeconds: duration },
    };
    return { output, wav, vocal: mixed.vocal, format };
  }

  return {
    kind: 'lyrics-swap',
    singer,
    modelVersions,
    requestSchema: lyricsSwapRequestSchema(modelVersions),
    async run(input: Readonly<Record<string, unknown>>, context: EngineRunContext): Promise<EngineOutput> {
      return (await execute(input, context, false)).output;
    },
    async render(
      input: Readonly<Record<string, unknown>>,
      context: EngineRunContext,
    ): Promise<LyricsSwapRender> {
      const { output, wav, vocal, format } = await execute(input, context, true);
      return {
        output,
        mixWav: wav,
        vocalWav: monoWav(vocal ?? new Int16Array(0), format.sampleRate),
      };
    },
  };
}
