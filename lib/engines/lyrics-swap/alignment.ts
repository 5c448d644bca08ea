/**
 * Lyrics-to-melody alignment: N syllables on the M notes of a phrase (engine-design §4).
 *
 * - N = M: one syllable per note.
 * - N > M: split the longest note into two equal halves at the same pitch, again and again, never into
 *   pieces shorter than max(1/8 beat, 110 ms).
 * - N < M: melisma; a dynamic programme groups the notes into N contiguous runs, preferring to tie
 *   repeated pitches and steps, to merge short or off-beat notes, and to start stressed syllables on
 *   strong beats.
 */
import type { ScoreNote } from './songs';

/** Shortest note piece a split may create, seconds. */
export const MIN_PIECE_SECONDS = 0.11;
/** Shortest note piece a split may create, beats. */
export const MIN_PIECE_BEATS = 1 / 8;

/** What the aligner needs to know about a syllable. */
export interface AlignableSyllable {
  readonly text: string;
  readonly stressed: boolean;
}

/** One phrase to align. */
export interface PhraseAlignmentInput {
  readonly syllables: readonly AlignableSyllable[];
  /** The phrase's notes, [MIDI (0 = rest), beats], already transposed. */
  readonly notes: readonly ScoreNote[];
  /** Tempo, beats per minute. */
  readonly bpm: number;
  /** Beats per bar (time signature numerator). */
  readonly beatsPerBar: number;
  /** Where in its bar the phrase starts, beats (0 = on the downbeat). */
  readonly barOffsetBeats: number;
  /** Mix-timeline time of the phrase's first beat, seconds. */
  readonly startSeconds: number;
}

/** One sung note. A syllable sung over several notes appears once per note. */
export interface AlignedNote {
  readonly syllable: string;
  /** Index of the syllable within its line. */
  readonly syllableIndex: number;
  readonly midi: number;
  /** Mix-timeline start, seconds. */
  readonly start: number;
  /** Seconds. */
  readonly duration: number;
  /** True when this note continues the syllable of the note before (melisma). */
  readonly continuation: boolean;
}

interface Piece {
  readonly midi: number;
  readonly startBeat: number;
  readonly beats: number;
}

function sungPieces(notes: readonly ScoreNote[]): Piece[] {
  const pieces: Piece[] = [];
  let beat = 0;
  for (const [midi, beats] of notes) {
    if (midi > 0) pieces.push({ midi, startBeat: beat, beats });
    beat += beats;
  }
  return pieces;
}

function minPieceBeats(bpm: number): number {
  return Math.max(MIN_PIECE_BEATS, (MIN_PIECE_SECONDS * bpm) / 60);
}

/** Splits the best candidate once; returns false when no piece can be split any more. */
function splitOnce(pieces: Piece[], minBeats: number): boolean {
  let best = -1;
  let bestScore = 0;
  pieces.forEach((piece, index) => {
    const half = piece.beats / 2;
    if (half + 1e-9 < minBeats) return;
    const onBeat = Number.isInteger(piece.startBeat + half);
    const score = piece.beats * (onBeat ? 1 : 0.9);
    if (score > bestScore + 1e-9) {
      best = index;
      bestScore = score;
    }
  });
  const piece = pieces[best];
  if (piece === undefined) return false;
  const half = piece.beats / 2;
  pieces.splice(
    best,
    1,
    { midi: piece.midi, startBeat: piece.startBeat, beats: half },
    { midi: piece.midi, startBeat: piece.startBeat + half, beats: half },
  );
  return true;
}

/**
 * How many syllables a phrase can carry: its notes split in halves down to the minimum piece.
 * @param notes - the phrase's notes
 * @param bpm - tempo, beats per minute
 */
export function phraseCapacity(notes: readonly ScoreNote[], bpm: number): number {
  const minBeats = minPieceBeats(bpm);
  return sungPieces(notes).reduce((sum, piece) => {
    let count = 1;
    let beats = piece.beats;
    while (beats / 2 + 1e-9 >= minBeats) {
      beats /= 2;
      count *= 2;
    }
    return sum + count;
  }, 0);
}

function beatStrength(positionInBar: number, beatsPerBar: number): number {
  const position = ((positionInBar % beatsPerBar) + beatsPerBar) % beatsPerBar;
  if (Math.abs(position) < 1e-9) return 1;
  if (beatsPerBar === 4 && Math.abs(position - 2) < 1e-9) return 0.75;
  return Number.isInteger(Math.round(position * 1e9) / 1e9) ? 0.5 : 0.25;
}

/** Groups M pieces into N contiguous runs (N < M) with the least total cost. */
function melismaGroups(
  pieces: readonly Piece[],
  syllables: readonly AlignableSyllable[],
  beatsPerBar: number,
  barOffset: number,
): number[] {
  const m = pieces.length;
  const n = syllables.length;
  const mergeCost = (j: number): number => {
    const piece = pieces[j];
    const previous = pieces[j - 1];
    if (piece === undefined || previous === undefined) return 0;
    const interval = Math.abs(piece.midi - previous.midi);
    const base = interval === 0 ? 0.3 : interval <= 2 ? 0.6 : 1 + 0.05 * (interval - 2);
    const short = piece.beats < 1 ? 0.6 : 1;
    const offBeat = beatStrength(barOffset + piece.startBeat, beatsPerBar) < 0.5 ? 0.7 : 1;
    return base * short * offBeat;
  };
  const startCost = (s: number, j: number): number => {
    const piece = pieces[j];
    if (piece === undefined || !syllables[s]?.stressed) return 0;
    return 0.5 * (1 - beatStrength(barOffset + piece.startBeat, beatsPerBar));
  };
  // cost[s][j]: best cost with syllables 0..s placed and syllable s ending at piece j.
  const cost: number[][] = Array.from({ length: n }, () =>
    new Array<number>(m).fill(Number.POSITIVE_INFINITY),
  );
  const from: number[][] = Array.from({ length: n }, () => new Array<number>(m).fill(-1));
  const runCost = (a: number, b: number): number => {
    let sum = 0;
    for (let j = a + 1; j <= b; j += 1) sum += mergeCost(j);
    return sum;
  };
  for (let j = 0; j <= m - n; j += 1) {
    const row = cost[0];
    if (row !== undefined) row[j] = startCost(0, 0) + runCost(0, j);
  }
  for (let s = 1; s < n; s += 1) {
    for (let j = s; j <= m - n + s; j += 1) {
      for (let start = s; start <= j; start += 1) {
        const previous = cost[s - 1]?.[start - 1] ?? Number.POSITIVE_INFINITY;
        const total = previous + startCost(s, start) + runCost(start, j);
        const row = cost[s];
        if (row !== undefined && total < (row[j] ?? Number.POSITIVE_INFINITY) - 1e-12) {
          row[j] = total;
          const origin = from[s];
          if (origin !== undefined) origin[j] = start;
        }
      }
    }
  }
  const groupOf = new Array<number>(m).fill(0);
  let end = m - 1;
  for (let s = n - 1; s >= 0; s -= 1) {
    const start = s === 0 ? 0 : (from[s]?.[end] ?? s);
    for (let j = start; j <= end; j += 1) groupOf[j] = s;
    end = start - 1;
  }
  return groupOf;
}

/**
 * Aligns one line's syllables on one phrase.
 * @returns one entry per sung note, in time order (start and duration in seconds on the mix timeline)
 * @throws RangeError when the phrase cannot carry that many syllables (check {@link phraseCapacity} first)
 */
export function alignPhrase(input: PhraseAlignmentInput): AlignedNote[] {
  const { syllables, bpm } = input;
  if (syllables.length === 0) return [];
  const pieces = sungPieces(input.notes);
  const minBeats = minPieceBeats(bpm);
  while (pieces.length < syllables.length) {
    if (!splitOnce(pieces, minBeats)) {
      throw new RangeError(`${syllables.length} syllables do not fit on this phrase`);
    }
  }
  const groupOf =
    pieces.length === syllables.length
      ? pieces.map((_, index) => index)
      : melismaGroups(pieces, syllables, input.beatsPerBar, input.barOffsetBeats);
  const secondsPerBeat = 60 / bpm;
  return pieces.map((piece, index) => {
    const syllableIndex = groupOf[index] ?? 0;
    return {
      syllable: syllables[syllableIndex]?.text ?? '',
      syllableIndex,
      midi: piece.midi,
      start: input.startSeconds + piece.startBeat * secondsPerBeat,
      duration: piece.beats * secondsPerBeat,
      continuation: index > 0 && groupOf[index - 1] === syllableIndex,
    };
  });
}
