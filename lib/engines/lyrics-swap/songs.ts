/**
 * The built-in public-domain songs (score files in `songs/`), their validation, and transposition
 * into a singer's range (engine-design §6).
 */
import { Ajv } from 'ajv';
import { parseChord } from './chords';
import amazingGrace from './songs/amazing-grace.json' with { type: 'json' };
import frereJacques from './songs/frere-jacques.json' with { type: 'json' };
import odeToJoy from './songs/ode-to-joy.json' with { type: 'json' };
import sakura from './songs/sakura.json' with { type: 'json' };
import twinkle from './songs/twinkle.json' with { type: 'json' };

/** A note: [MIDI number (0 = rest), length in beats]. */
export type ScoreNote = readonly [number, number];

/** One phrase of the melody; one lyric line is sung on one phrase. */
export interface ScorePhrase {
  readonly notes: readonly ScoreNote[];
  /** Rest after the phrase, beats. */
  readonly rest: number;
  /** The original words, syllables separated by spaces (documentation only). */
  readonly orig?: string;
}

/** A song's score file. */
export interface SongScore {
  readonly id: string;
  readonly title: string;
  /** Where the melody comes from and why it is public domain. */
  readonly source: string;
  readonly license: 'public-domain';
  /** Language of the original words. */
  readonly lang: string;
  /** Tempo, quarter-note beats per minute. */
  readonly bpm: number;
  /** Time signature [beats per bar, beat unit]. */
  readonly time: readonly [number, number];
  /** Key as a chord symbol root, `m` for minor, e.g. `C`, `D`, `Am`. */
  readonly key: string;
  /** Beats before the first downbeat. */
  readonly pickup: number;
  /** Lowest and highest MIDI note of the melody. */
  readonly range: readonly [number, number];
  readonly phrases: readonly ScorePhrase[];
  /** Harmony over the whole song: [chord symbol, beats], back to back from beat 0. */
  readonly chords: readonly (readonly [string, number])[];
}

const SCORE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'title',
    'source',
    'license',
    'lang',
    'bpm',
    'time',
    'key',
    'pickup',
    'range',
    'phrases',
    'chords',
  ],
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9-]+$' },
    title: { type: 'string', minLength: 1 },
    source: { type: 'string', minLength: 10 },
    license: { const: 'public-domain' },
    lang: { type: 'string', minLength: 2 },
    bpm: { type: 'number', minimum: 40, maximum: 240 },
    time: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      items: [
        { type: 'integer', minimum: 2, maximum: 12 },
        { type: 'integer', enum: [2, 4, 8] },
      ],
    },
    key: { type: 'string', pattern: '^[A-G][#b]?m?$' },
    pickup: { type: 'number', minimum: 0 },
    range: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      items: [
        { type: 'integer', minimum: 21, maximum: 108 },
        { type: 'integer', minimum: 21, maximum: 108 },
      ],
    },
    phrases: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['notes', 'rest'],
        properties: {
          notes: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'array',
              minItems: 2,
              maxItems: 2,
              items: [
                { type: 'integer', minimum: 0, maximum: 108 },
                { type: 'number', exclusiveMinimum: 0, maximum: 16 },
              ],
            },
          },
          rest: { type: 'number', minimum: 0 },
          orig: { type: 'string' },
        },
      },
    },
    chords: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'array',
        minItems: 2,
        maxItems: 2,
        items: [{ type: 'string' }, { type: 'number', exclusiveMinimum: 0 }],
      },
    },
  },
} as const;

const validateShape = new Ajv({ allErrors: true, strict: true, strictTuples: false }).compile<SongScore>(
  SCORE_SCHEMA,
);

/** Total length of a phrase (notes plus the rest after it), beats. */
export function phraseBeats(phrase: ScorePhrase): number {
  return phrase.notes.reduce((sum, [, beats]) => sum + beats, 0) + phrase.rest;
}

/**
 * Problems with a score beyond its JSON shape: range, chords, meter.
 * @returns human-readable problems; empty when the score is consistent
 */
export function scoreProblems(song: SongScore): string[] {
  const problems: string[] = [];
  const pitches = song.phrases
    .flatMap((phrase) => phrase.notes.map(([midi]) => midi))
    .filter((midi) => midi > 0);
  if (pitches.length === 0) return ['the melody has no notes'];
  const low = Math.min(...pitches);
  const high = Math.max(...pitches);
  if (low !== song.range[0] || high !== song.range[1]) {
    problems.push(`range is [${song.range.join(', ')}] but the notes span [${low}, ${high}]`);
  }
  for (const [symbol] of song.chords) {
    if (parseChord(symbol) === undefined) problems.push(`unknown chord symbol "${symbol}"`);
  }
  const total = song.phrases.reduce((sum, phrase) => sum + phraseBeats(phrase), 0);
  const chordTotal = song.chords.reduce((sum, [, beats]) => sum + beats, 0);
  if (Math.abs(total - chordTotal) > 1e-9)
    problems.push(`the chords last ${chordTotal} beats, the phrases ${total}`);
  const bar = song.time[0];
  if (song.pickup === 0) {
    song.phrases.forEach((phrase, index) => {
      const beats = phraseBeats(phrase);
      if (Math.abs(beats / bar - Math.round(beats / bar)) > 1e-9) {
        problems.push(`phrase ${index + 1} lasts ${beats} beats, not whole ${bar}/${song.time[1]} bars`);
      }
    });
  } else if (Math.abs((total - song.pickup) / bar - Math.round((total - song.pickup) / bar)) > 1e-9) {
    problems.push(
      `after the ${song.pickup}-beat pickup the song lasts ${total - song.pickup} beats, not whole bars`,
    );
  }
  return problems;
}

/**
 * Checks a score file.
 * @param raw - parsed JSON of a score file
 * @throws Error listing every problem (a built-in score that fails is a build error, not a client one)
 */
export function parseSongScore(raw: unknown): SongScore {
  if (!validateShape(raw)) {
    const problems = (validateShape.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`,
    );
    throw new Error(`song score is malformed: ${problems.join('; ')}`);
  }
  const problems = scoreProblems(raw);
  if (problems.length > 0) throw new Error(`song "${raw.id}" is inconsistent: ${problems.join('; ')}`);
  return raw;
}

/** The raw score files in `bgm_index` order. */
export const SCORE_FILES: readonly unknown[] = [twinkle, odeToJoy, sakura, amazingGrace, frereJacques];

let songs: readonly SongScore[] | undefined;

/**
 * The built-in songs in `bgm_index` order (validated once).
 * @throws Error when a built-in score file is malformed
 */
export function builtInSongs(): readonly SongScore[] {
  songs ??= SCORE_FILES.map(parseSongScore);
  return songs;
}

/**
 * The transposition that puts the song's range in the singer's: the song's middle as close as possible to
 * the singer's middle, shifted further if an end of the melody would fall outside the range.
 * @param songRange - [lowest, highest] MIDI of the melody
 * @param singerRange - [lowest, highest] MIDI the singer sings comfortably
 * @returns semitones to add to every note
 */
export function transposition(
  songRange: readonly [number, number],
  singerRange: readonly [number, number],
): number {
  const centred = Math.round((singerRange[0] + singerRange[1]) / 2 - (songRange[0] + songRange[1]) / 2);
  const lowest = singerRange[0] - songRange[0];
  const highest = singerRange[1] - songRange[1];
  if (lowest > highest) return centred;
  return Math.min(Math.max(centred, lowest), highest);
}
