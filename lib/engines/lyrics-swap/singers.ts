/**
 * Singer presets: language, voice type (which formant table), range for transposition, vibrato and
 * voice-quality settings. Starting values from engine-design §1.3 (vibrato 5.5–6 Hz, pop ±20–40 cents
 * on long notes; jitter 0.3–0.8 %, shimmer 2–4 %) and §6 (soprano 60–79, tenor 48–67).
 */
import type { VoiceType } from './phones';

/** Vibrato on long notes. */
export interface VibratoSettings {
  /** Rate, Hz. */
  readonly rateHz: number;
  /** Extent, cents either side of the note (peak, not peak-to-peak). */
  readonly extentCents: number;
  /** Delay after the note start before the vibrato fades in, seconds. */
  readonly delaySeconds: number;
  /** Fade-in length, seconds. */
  readonly fadeInSeconds: number;
  /** Notes shorter than this get none, seconds. */
  readonly minNoteSeconds: number;
}

/** A singer the engine can be built for. */
export interface SingerPreset {
  /** Engine name after the dot of the engine id, e.g. `hikari`. */
  readonly id: string;
  readonly displayName: string;
  /** What the singer sings: `ja` = Japanese morae (English words approximated as morae), `en` = English syllables. */
  readonly language: 'ja' | 'en';
  /** Voice class: selects the formant table. */
  readonly voice: VoiceType;
  /** Comfortable range, MIDI note numbers [lowest, highest]; songs are transposed into it. */
  readonly rangeMidi: readonly [number, number];
  /** Multiplies every formant frequency (a shorter vocal tract > 1). */
  readonly formantScale: number;
  readonly vibrato: VibratoSettings;
  /** Random period variation, fraction of the period (0.005 = 0.5 %). */
  readonly jitter: number;
  /** Random amplitude variation per period, fraction. */
  readonly shimmer: number;
  /** Aspiration noise mixed into voicing, fraction of full voicing. */
  readonly breathiness: number;
  /** Seed of the singer's noise and jitter, so renders are reproducible. */
  readonly seed: number;
}

const hikari: SingerPreset = {
  id: 'hikari',
  displayName: 'Hikari',
  language: 'ja',
  voice: 'soprano',
  rangeMidi: [60, 79],
  formantScale: 1,
  vibrato: { rateHz: 5.8, extentCents: 35, delaySeconds: 0.25, fadeInSeconds: 0.25, minNoteSeconds: 0.45 },
  jitter: 0.004,
  shimmer: 0.02,
  breathiness: 0.06,
  seed: 0x68696b61,
};

const leo: SingerPreset = {
  id: 'leo',
  displayName: 'Leo',
  language: 'en',
  voice: 'tenor',
  rangeMidi: [48, 67],
  formantScale: 1,
  vibrato: { rateHz: 5.5, extentCents: 45, delaySeconds: 0.3, fadeInSeconds: 0.25, minNoteSeconds: 0.5 },
  jitter: 0.005,
  shimmer: 0.025,
  breathiness: 0.04,
  seed: 0x6c656f21,
};

/** The built-in singers: `hikari` (Japanese, soprano) and `leo` (English, tenor). */
export const SINGERS: { readonly hikari: SingerPreset; readonly leo: SingerPreset } = { hikari, leo };
