import { PitchDetector } from 'pitchy';
import { describe, expect, it } from 'vitest';
import { SINGERS, type SingerPreset, singVocalStem } from '../../lib/engines/lyrics-swap';
import type { AlignedNote } from '../../lib/engines/lyrics-swap/alignment';
import { lowPass, midiToHz } from './support/measure';

const WINDOW = 2048;

/** Median F0 (pitchy, McLeod pitch method) over the steady part of a note, and the share of clear frames. */
function measureNote(
  samples: Float32Array,
  sampleRate: number,
  note: AlignedNote,
): { cents: number; voiced: number } {
  const target = midiToHz(note.midi);
  const from = note.start + Math.max(0.08, 0.25 * note.duration);
  const to = note.start + 0.7 * note.duration;
  const margin = WINDOW;
  const first = Math.round(from * sampleRate) - margin;
  // Low-passed just above the note, so a strong second harmonic (F1 near 2·F0) cannot cause an octave error.
  const excerpt = lowPass(
    samples.subarray(first, Math.round(to * sampleRate) + margin),
    target * 1.3,
    sampleRate,
  );
  const detector = PitchDetector.forFloat32Array(WINDOW);
  const pitches: number[] = [];
  let frames = 0;
  for (let t = from; t <= to; t += 0.01) {
    const start = Math.round(t * sampleRate) - first - WINDOW / 2;
    const [pitch, clarity] = detector.findPitch(excerpt.subarray(start, start + WINDOW), sampleRate);
    frames += 1;
    if (clarity >= 0.9) pitches.push(pitch);
  }
  pitches.sort((a, b) => a - b);
  const median = pitches[Math.floor(pitches.length / 2)] ?? 0;
  return { cents: 1200 * Math.log2(median / target), voiced: pitches.length / frames };
}

async function expectNotesOnPitch(singer: SingerPreset, lyrics: string[], bgmIndex: number): Promise<void> {
  const { samples, sampleRate, arrangement } = await singVocalStem(lyrics, {
    singer,
    bgmIndex,
    modelVersion: 'v1',
  });
  const notes = arrangement.alignment.flat();
  expect(notes.length).toBeGreaterThan(10);
  const distinctPitches = new Set(notes.map((note) => note.midi));
  expect(distinctPitches.size).toBeGreaterThanOrEqual(4);
  const report = notes.map((note) => ({
    syllable: note.syllable,
    midi: note.midi,
    ...measureNote(samples, sampleRate, note),
  }));
  for (const entry of report) {
    expect(Math.abs(entry.cents), JSON.stringify(entry)).toBeLessThanOrEqual(50);
    expect(entry.voiced, JSON.stringify(entry)).toBeGreaterThanOrEqual(0.9);
  }
}

describe('model v1 formant singer pitch (independent check with pitchy)', () => {
  it('sings each of hikari’s syllables on its note (Twinkle, +5 semitones)', async () => {
    await expectNotesOnPitch(SINGERS.hikari, ['something like you', 'all about you'], 0);
  });

  it('sings each of leo’s syllables on its note, melismas included (Ode to Joy, −5 semitones)', async () => {
    await expectNotesOnPitch(SINGERS.leo, ['freedom rings', 'Dein Hei lig tum'], 1);
  });

  it('is silent before the first onset and after the last note, and deterministic', async () => {
    const options = { singer: SINGERS.hikari, sampleRate: 24_000, modelVersion: 'v1' };
    const first = await singVocalStem(['きらきら'], options);
    const second = await singVocalStem(['きらきら'], options);
    expect(Buffer.from(first.samples.buffer).equals(Buffer.from(second.samples.buffer))).toBe(true);
    const notes = first.arrangement.alignment.flat();
    const end = Math.max(...notes.map((n) => n.start + n.duration));
    const rms = (from: number, to: number) => {
      const part = first.samples.subarray(Math.round(from * 24_000), Math.round(to * 24_000));
      return Math.sqrt(part.reduce((sum, v) => sum + v * v, 0) / Math.max(1, part.length));
    };
    const sung = rms(notes[0]?.start ?? 0, end);
    expect(sung).toBeGreaterThan(0.01);
    expect(rms(0, 0.3)).toBe(0);
    expect(rms(end + 0.15, first.samples.length / 24_000)).toBeLessThan(sung * 1e-3);
  });
});
