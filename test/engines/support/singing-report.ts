/**
 * Measures a model-v2 vocal note by note: median F0 error and voiced share (pitchy), and F1/F2 by LPC
 * for monophthongs sung at F0 ≤ 250 Hz (engine-design §5). Shared by the engine tests and the benchmark.
 *
 * Which frames count: the note's steady part (after the first max(80 ms, 25 %), before the last 15 %),
 * and only while the note's own vowel is sung; the next syllable's consonants, which start before its
 * beat and so inside this note, are not part of the note's pitch. Those times come from the plan's
 * segment timing (never from its F0); F0 and formants are measured on the audio only.
 */
import type { Arrangement, SingerPreset } from '../../../lib/engines/lyrics-swap';
import type { NucleusId } from '../../../lib/engines/lyrics-swap/phones';
import { nucleusTargets, planKlattPerformance } from '../../../lib/engines/lyrics-swap/v2/singing-plan';
import {
  measureFormants,
  measureFormantsDap,
  measureNotePitch,
  midiToHz,
  PITCH_WINDOW_SECONDS,
} from './measure';

/** One sung note, measured. */
export interface NoteReport {
  readonly line: number;
  readonly syllable: string;
  readonly nucleus: NucleusId;
  readonly midi: number;
  readonly start: number;
  readonly duration: number;
  readonly cents: number;
  readonly voiced: number;
  /** Steady frames measured for pitch. */
  readonly frames: number;
  /**
   * F1/F2 measured by discrete all-pole modelling (`f1`, `f2`) and by plain autocorrelation LPC
   * (`lpc1`, `lpc2`), and the singer's targets, Hz; present when measured (monophthong, F0 ≤ 250 Hz,
   * vowel long enough).
   */
  readonly formants?: {
    readonly f1: number;
    readonly f2: number;
    readonly lpc1: number;
    readonly lpc2: number;
    readonly target1: number;
    readonly target2: number;
  };
}

/** Vowels the formant bar applies to: monophthongs (diphthongs glide; r-coloured er and ん are not vowels). */
const GLIDING: ReadonlySet<string> = new Set(['ey', 'ay', 'oy', 'aw', 'ow', 'er', 'nn']);
/** Formant transitions settle this long after a vowel starts and before it ends, seconds. */
const VOWEL_INSET = [0.05, 0.04] as const;
/** Shortest vowel stretch measured for formants, seconds. */
const MIN_VOWEL_SECONDS = 0.06;

/**
 * Measures every note of a rendered vocal.
 * @param options.formantsAtAnyPitch - measure formants on every note (for noise-excited renders)
 */
export function reportSinging(
  samples: Float32Array,
  sampleRate: number,
  arrangement: Arrangement,
  singer: SingerPreset,
  options: { readonly formantsAtAnyPitch?: boolean } = {},
): NoteReport[] {
  const lines = arrangement.lines.map((line, index) => ({
    syllables: line.syllables,
    notes: arrangement.alignment[index] ?? [],
  }));
  const plan = planKlattPerformance(lines, singer);
  const nuclei = plan.segments
    .filter((segment) => segment.role === 'nucleus')
    .map((s) => [s.start, s.end] as const);
  const rows: NoteReport[] = [];
  lines.forEach((line, lineIndex) => {
    for (const note of line.notes) {
      const syllable = line.syllables[note.syllableIndex];
      if (syllable === undefined) continue;
      const noteEnd = note.start + note.duration;
      const sung = nuclei
        .map(([a, b]) => [Math.max(a, note.start), Math.min(b, noteEnd)] as const)
        .filter(([a, b]) => b > a);
      // A frame counts when its whole analysis window (±half of it) lies inside the vowel.
      const half = PITCH_WINDOW_SECONDS / 2;
      const framesInVowel = sung.map(([a, b]) => [a + half, b - half] as const).filter(([a, b]) => b >= a);
      const pitch = measureNotePitch(samples, sampleRate, note, framesInVowel);
      let formants: NoteReport['formants'];
      const f0 = midiToHz(note.midi);
      if (!GLIDING.has(syllable.nucleus) && (f0 <= 250 || options.formantsAtAnyPitch === true)) {
        const span = sung.find(([a, b]) => b - a > VOWEL_INSET[0] + VOWEL_INSET[1] + MIN_VOWEL_SECONDS);
        if (span !== undefined) {
          const [a, b] = span;
          // A whispered render has a white source: no pre-emphasis, and order 12 (LpcOptions).
          const lpc = measureFormants(
            samples,
            sampleRate,
            a + VOWEL_INSET[0],
            b - VOWEL_INSET[1],
            options.formantsAtAnyPitch === true ? { order: 12, preEmphasis: 0 } : {},
          );
          const dap =
            options.formantsAtAnyPitch === true
              ? lpc
              : measureFormantsDap(samples, sampleRate, a + VOWEL_INSET[0], b - VOWEL_INSET[1], f0);
          const [t1, t2] = nucleusTargets(syllable.nucleus, singer).start.frequencies;
          // The singer keeps F1 above the voice's fundamental on high notes (engine-design §1.3).
          formants = {
            f1: dap.f1,
            f2: dap.f2,
            lpc1: lpc.f1,
            lpc2: lpc.f2,
            target1: Math.max(t1, 1.05 * f0 + 30),
            target2: t2,
          };
        }
      }
      rows.push({
        line: lineIndex,
        syllable: syllable.text,
        nucleus: syllable.nucleus,
        midi: note.midi,
        start: note.start,
        duration: note.duration,
        cents: pitch.cents,
        voiced: pitch.voiced,
        frames: pitch.frames,
        ...(formants === undefined ? {} : { formants }),
      });
    }
  });
  return rows;
}

/** Relative error, percent. */
export function percentError(measured: number, target: number): number {
  return (100 * (measured - target)) / target;
}
