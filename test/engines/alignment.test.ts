import { describe, expect, it } from 'vitest';
import {
  type AlignableSyllable,
  type AlignedNote,
  alignPhrase,
  MIN_PIECE_SECONDS,
  phraseCapacity,
} from '../../lib/engines/lyrics-swap/alignment';
import type { ScoreNote } from '../../lib/engines/lyrics-swap/songs';

const TWINKLE_L1: ScoreNote[] = [
  [60, 1],
  [60, 1],
  [67, 1],
  [67, 1],
  [69, 1],
  [69, 1],
  [67, 2],
];

function syllables(count: number, stressed = true): AlignableSyllable[] {
  return Array.from({ length: count }, (_, k) => ({ text: `s${k}`, stressed }));
}

function align(count: number, notes: ScoreNote[] = TWINKLE_L1, bpm = 100): AlignedNote[] {
  return alignPhrase({
    syllables: syllables(count),
    notes,
    bpm,
    beatsPerBar: 4,
    barOffsetBeats: 0,
    startSeconds: 0.5,
  });
}

function expectContiguous(notes: readonly AlignedNote[], start: number, end: number): void {
  expect(notes[0]?.start).toBeCloseTo(start, 9);
  notes.forEach((note, k) => {
    const next = notes[k + 1];
    if (next !== undefined) expect(next.start).toBeCloseTo(note.start + note.duration, 9);
  });
  const last = notes.at(-1);
  expect((last?.start ?? 0) + (last?.duration ?? 0)).toBeCloseTo(end, 9);
}

describe('alignPhrase', () => {
  it('puts one syllable on each note when N = M', () => {
    const notes = align(7);
    expect(notes.map((n) => n.syllable)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
    expect(notes.map((n) => n.midi)).toEqual([60, 60, 67, 67, 69, 69, 67]);
    expect(notes.every((n) => !n.continuation)).toBe(true);
    expectContiguous(notes, 0.5, 0.5 + 8 * 0.6);
  });

  it('splits the longest notes when N > M, never below the minimum piece', () => {
    const notes = align(9);
    expect(notes).toHaveLength(9);
    expect(new Set(notes.map((n) => n.syllableIndex)).size).toBe(9);
    // The 2-beat last note is split first (its halves land on beats).
    expect(notes.slice(-2).map((n) => [n.midi, n.duration])).toEqual([
      [67, 0.6],
      [67, 0.6],
    ]);
    expect(Math.min(...notes.map((n) => n.duration))).toBeGreaterThanOrEqual(MIN_PIECE_SECONDS);
    expectContiguous(notes, 0.5, 5.3);
  });

  it('keeps splitting down to the capacity and refuses more', () => {
    const capacity = phraseCapacity(TWINKLE_L1, 100);
    // 0.6 s notes halve to 0.3 and 0.15 s (0.075 < 0.11); the 1.2 s note to eight 0.15 s pieces.
    expect(capacity).toBe(6 * 4 + 8);
    const notes = align(capacity);
    expect(Math.min(...notes.map((n) => n.duration))).toBeGreaterThanOrEqual(MIN_PIECE_SECONDS);
    expectContiguous(notes, 0.5, 5.3);
    expect(() => align(capacity + 1)).toThrow(RangeError);
  });

  it('groups notes into melismas when N < M: every note covered, syllables in order', () => {
    const ode: ScoreNote[] = [
      [64, 1],
      [64, 1],
      [66, 1],
      [62, 1],
      [64, 1],
      [66, 0.5],
      [67, 0.5],
      [66, 1],
      [62, 1],
    ];
    const notes = align(7, ode, 108);
    expect(notes).toHaveLength(9);
    expect(notes.map((n) => n.midi)).toEqual([64, 64, 66, 62, 64, 66, 67, 66, 62]);
    const indices = notes.map((n) => n.syllableIndex);
    expect(new Set(indices)).toEqual(new Set([0, 1, 2, 3, 4, 5, 6]));
    indices.forEach((index, k) => {
      if (k > 0) expect(index - (indices[k - 1] ?? 0)).toBeGreaterThanOrEqual(0);
      expect(notes[k]?.continuation).toBe(k > 0 && indices[k - 1] === index);
    });
    // The off-beat eighth after 66 is the cheapest note to slur.
    expect(notes[6]?.continuation).toBe(true);
    expect(notes[6]?.syllable).toBe(notes[5]?.syllable);
    expectContiguous(notes, 0.5, 0.5 + 8 * (60 / 108));
  });

  it('skips rests inside a phrase', () => {
    const notes = align(2, [
      [60, 1],
      [0, 1],
      [62, 2],
    ]);
    expect(notes.map((n) => [n.midi, n.start])).toEqual([
      [60, 0.5],
      [62, 0.5 + 1.2],
    ]);
  });

  it('returns nothing for no syllables', () => {
    expect(align(0)).toEqual([]);
  });
});
