/**
 * Chord symbols of the score files (`C`, `F#m`, `G7`, `Bbmaj7`, …) and note names.
 */

/** A parsed chord: root pitch class (0 = C) and the intervals above the root, semitones. */
export interface Chord {
  readonly root: number;
  readonly intervals: readonly number[];
}

const LETTERS: Readonly<Record<string, number>> = { C: 0, D: 2, E: 4, F: 5, G: 7, A: 9, B: 11 };
const QUALITIES: Readonly<Record<string, readonly number[]>> = {
  '': [0, 4, 7],
  m: [0, 3, 7],
  '7': [0, 4, 7, 10],
  m7: [0, 3, 7, 10],
  maj7: [0, 4, 7, 11],
  dim: [0, 3, 6],
  sus4: [0, 5, 7],
};
const PITCH_NAMES = ['C', 'Db', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'] as const;

/**
 * Parses a chord symbol.
 * @returns the chord, or `undefined` when the symbol is not one of root [#|b] + (''|m|7|m7|maj7|dim|sus4)
 */
export function parseChord(symbol: string): Chord | undefined {
  const match = /^([A-G])([#b]?)(.*)$/.exec(symbol);
  if (match === null) return undefined;
  const letter = LETTERS[match[1] ?? ''];
  const intervals = QUALITIES[match[3] ?? ''];
  if (letter === undefined || intervals === undefined) return undefined;
  const accidental = match[2] === '#' ? 1 : match[2] === 'b' ? -1 : 0;
  return { root: (letter + accidental + 12) % 12, intervals };
}

/**
 * Name of a key (its tonic as a chord symbol: `D` major, `Am` minor) after transposition.
 * @param key - e.g. `D`, `F#`, `Bb`, `Am`
 * @param semitones - transposition, may be negative
 * @returns e.g. `A` for `D` + 7, `Cm` for `Am` + 3; the input unchanged if it cannot be parsed
 */
export function transposeKeyName(key: string, semitones: number): string {
  const chord = parseChord(key);
  if (chord === undefined) return key;
  const name = PITCH_NAMES[(((chord.root + semitones) % 12) + 12) % 12];
  return name === undefined ? key : `${name}${key.endsWith('m') ? 'm' : ''}`;
}
