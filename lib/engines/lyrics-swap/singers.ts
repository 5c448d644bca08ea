/**
 * Singer presets: language, voice type (which formant table), range for transposition, vibrato and
 * voice-quality settings. Starting values from engine-design §1.3 (vibrato 5.5–6 Hz, pop ±20–40 cents
 * on long notes; jitter 0.3–0.8 %, shimmer 2–4 %), §1.2 (LF shape Rd ≈0.8–1.0 modal, 1.5–2 breathy)
 * and §6 (soprano 60–79, tenor 48–67). Model v1 reads every field except `glottalRd`.
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

/** Languages a singer can sing: Japanese morae, English syllables, Korean (Hangul) syllables. */
export type SingerLanguage = 'ja' | 'en' | 'ko';

/** A singer the engine can be built for. */
export interface SingerPreset {
  /** Engine name after the dot of the engine id, e.g. `hikari`. */
  readonly id: string;
  readonly displayName: string;
  /**
   * What the singer sings: `ja` = Japanese morae (English words approximated as morae), `en` = English
   * syllables, `ko` = Korean syllables (Hangul).
   */
  readonly language: SingerLanguage;
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
  /**
   * Glottal pulse shape for model v2: the LF model's Rd (Fant 1995), 0.3 pressed … 2.7 breathy; larger
   * values give a steeper spectral tilt (a softer voice).
   */
  readonly glottalRd: number;
  /**
   * Model v2's "ring": a high-shelf boost above ≈2.5 kHz, dB, standing in for the singer's formant
   * (Sundberg 2001: a clustered F3–F5 peak near 2.5–3 kHz in trained voices; weaker in pop voices).
   */
  readonly ringDb: number;
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
  glottalRd: 0.8,
  ringDb: 5,
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
  glottalRd: 0.7,
  ringDb: 6,
};

const minji: SingerPreset = {
  id: 'minji',
  displayName: 'Minji',
  language: 'ko',
  voice: 'alto',
  rangeMidi: [53, 72],
  formantScale: 1,
  vibrato: { rateHz: 5.6, extentCents: 40, delaySeconds: 0.28, fadeInSeconds: 0.25, minNoteSeconds: 0.45 },
  jitter: 0.004,
  shimmer: 0.025,
  breathiness: 0.08,
  seed: 0x6d696e6a,
  glottalRd: 0.9,
  ringDb: 6,
};

/** The built-in singers: `hikari` (Japanese, soprano), `leo` (English, tenor) and `minji` (Korean, alto). */
export const SINGERS: {
  readonly hikari: SingerPreset;
  readonly leo: SingerPreset;
  readonly minji: SingerPreset;
} = { hikari, leo, minji };
