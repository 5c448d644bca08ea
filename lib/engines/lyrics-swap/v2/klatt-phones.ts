/**
 * Consonant targets of model v2's Klatt-style synthesizer: cascade loci, the parallel-branch amplitudes
 * that shape frication and bursts, nasal pole–zero pairs, durations and voice-onset times per language.
 *
 * Sources: Klatt 1980 JASA 67:971–995, Table III (male loci F1–F3, B1–B3; parallel amplitudes A2–A6 and
 * bypass AB in dB for frication and bursts; nasal murmur F1 480, FNP 270, FNZ 450), as summarised in
 * engine-design §1.4; the source levels AF are our calibration (see {@link KlattConsonant.afDb}). Values Klatt does not list (ŋ, affricates,
 * Japanese ɸ/ɕ/ɾ, Korean tense and aspirated series) are estimates from the neighbouring sounds.
 * VOT: Abramson & Whalen 2017 (English long lag, ≈60 ms; short lag 0–25 ms); Korean aspirated > lenis
 * > tense; Japanese /p t k/ ≈20–40 ms (engine-design §1.4, approximate). Durations: UTAU preutterance
 * defaults (stops 40–70 ms, fricatives 80–130 ms, nasals and liquids 50–80 ms).
 */
import type { ConsonantBasics, ConsonantId, ConsonantKind } from '../phones';
import type { SingerLanguage } from '../singers';

/** How a consonant is produced (decides its segments). */
export type Manner = ConsonantKind;

/** Parallel-branch amplitudes, dB (Klatt's scale: 60 ≈ strong): A2, A3, A4, A5, A6 and the bypass AB. */
export type ParallelDb = readonly [number, number, number, number, number, number];

/** One consonant for model v2. */
export interface KlattConsonant extends ConsonantBasics {
  readonly manner: Manner;
  /**
   * Frication or burst source level, dB on Klatt's AF scale, calibrated for this synthesizer: its
   * parallel branch uses constant-peak-gain band-passes and a flat bypass, whose loudness differs from
   * Klatt's resonators, so the values are set (by measuring rendered songs) to put frication ≈10–14 dB
   * (s, sh), ≈20 dB (f, θ, ɸ) and bursts ≈8–14 dB under the vowels, as in speech.
   */
  readonly afDb: number;
  /** Parallel amplitudes shaping the frication or burst; `undefined` for sounds without noise. */
  readonly parallel?: ParallelDb;
  /** Nasal zero frequency (the pole sits at 270 Hz), Hz. */
  readonly nasalZeroHz?: number;
}

const OFF = -99;
const NO_NOISE: ParallelDb = [OFF, OFF, OFF, OFF, OFF, OFF];
const k = (spec: KlattConsonant): KlattConsonant => spec;

/** The consonant table (male loci; the planner scales them for female voices). */
// biome-ignore format: one consonant per line
export const KLATT_CONSONANTS: Readonly<Record<ConsonantId, KlattConsonant>> = {
  p: k({ manner: 'stop', voiced: false, locus: [400, 1100, 2150], bandwidths: [300, 150, 220], voicing: 0, afDb: 48, parallel: [OFF, OFF, OFF, OFF, OFF, 63], onsetSeconds: 0.06, codaSeconds: 0.07 }),
  b: k({ manner: 'stop', voiced: true, locus: [200, 1100, 2150], bandwidths: [60, 110, 130], voicing: 0.18, afDb: 40, parallel: [OFF, OFF, OFF, OFF, OFF, 63], onsetSeconds: 0.05, codaSeconds: 0.06 }),
  t: k({ manner: 'stop', voiced: false, locus: [400, 1600, 2600], bandwidths: [300, 120, 250], voicing: 0, afDb: 53, parallel: [OFF, 30, 45, 57, 63, OFF], onsetSeconds: 0.06, codaSeconds: 0.07 }),
  d: k({ manner: 'stop', voiced: true, locus: [200, 1600, 2600], bandwidths: [60, 100, 170], voicing: 0.18, afDb: 50, parallel: [OFF, 47, 60, 62, 60, OFF], onsetSeconds: 0.05, codaSeconds: 0.06 }),
  k: k({ manner: 'stop', voiced: false, locus: [300, 1990, 2850], bandwidths: [250, 160, 330], voicing: 0, afDb: 60, parallel: [OFF, 53, 43, 45, 45, OFF], onsetSeconds: 0.065, codaSeconds: 0.07 }),
  g: k({ manner: 'stop', voiced: true, locus: [200, 1990, 2850], bandwidths: [60, 150, 280], voicing: 0.18, afDb: 55, parallel: [OFF, 53, 43, 45, 45, OFF], onsetSeconds: 0.05, codaSeconds: 0.06 }),
  ch: k({ manner: 'affricate', voiced: false, locus: [350, 1800, 2820], bandwidths: [200, 90, 300], voicing: 0, afDb: 56, parallel: [OFF, 57, 50, 48, 46, OFF], onsetSeconds: 0.1, codaSeconds: 0.1 }),
  jh: k({ manner: 'affricate', voiced: true, locus: [260, 1800, 2820], bandwidths: [60, 80, 270], voicing: 0.35, afDb: 50, parallel: [OFF, 57, 50, 48, 46, OFF], onsetSeconds: 0.09, codaSeconds: 0.09 }),
  ts: k({ manner: 'affricate', voiced: false, locus: [350, 1600, 2600], bandwidths: [200, 90, 200], voicing: 0, afDb: 54, parallel: [OFF, OFF, OFF, OFF, 55, OFF], onsetSeconds: 0.1, codaSeconds: 0.1 }),
  f: k({ manner: 'fricative', voiced: false, locus: [340, 1100, 2080], bandwidths: [200, 120, 150], voicing: 0, afDb: 30, parallel: [OFF, OFF, OFF, OFF, OFF, 57], onsetSeconds: 0.09, codaSeconds: 0.1 }),
  v: k({ manner: 'fricative', voiced: true, locus: [220, 1100, 2080], bandwidths: [60, 120, 150], voicing: 0.5, afDb: 37, parallel: [OFF, OFF, OFF, OFF, OFF, 57], onsetSeconds: 0.08, codaSeconds: 0.08 }),
  th: k({ manner: 'fricative', voiced: false, locus: [320, 1290, 2540], bandwidths: [200, 90, 200], voicing: 0, afDb: 36, parallel: [OFF, OFF, OFF, OFF, 28, 48], onsetSeconds: 0.09, codaSeconds: 0.1 }),
  dh: k({ manner: 'fricative', voiced: true, locus: [270, 1290, 2540], bandwidths: [60, 80, 170], voicing: 0.55, afDb: 44, parallel: [OFF, OFF, OFF, OFF, 28, 48], onsetSeconds: 0.07, codaSeconds: 0.08 }),
  s: k({ manner: 'fricative', voiced: false, locus: [320, 1390, 2530], bandwidths: [200, 80, 200], voicing: 0, afDb: 54, parallel: [OFF, OFF, OFF, OFF, 52, OFF], onsetSeconds: 0.11, codaSeconds: 0.11 }),
  z: k({ manner: 'fricative', voiced: true, locus: [240, 1390, 2530], bandwidths: [70, 60, 180], voicing: 0.5, afDb: 49, parallel: [OFF, OFF, OFF, OFF, 52, OFF], onsetSeconds: 0.09, codaSeconds: 0.09 }),
  sh: k({ manner: 'fricative', voiced: false, locus: [300, 1840, 2750], bandwidths: [200, 100, 300], voicing: 0, afDb: 56, parallel: [OFF, 57, 48, 48, 46, OFF], onsetSeconds: 0.11, codaSeconds: 0.11 }),
  zh: k({ manner: 'fricative', voiced: true, locus: [300, 1840, 2750], bandwidths: [60, 100, 300], voicing: 0.5, afDb: 51, parallel: [OFF, 57, 48, 48, 46, OFF], onsetSeconds: 0.09, codaSeconds: 0.09 }),
  h: k({ manner: 'aspirate', voiced: false, locus: [450, 1450, 2450], bandwidths: [300, 160, 250], voicing: 0, afDb: OFF, onsetSeconds: 0.08, codaSeconds: 0.06 }),
  hf: k({ manner: 'fricative', voiced: false, locus: [340, 1100, 2080], bandwidths: [200, 120, 150], voicing: 0, afDb: 36, parallel: [OFF, 40, 40, OFF, OFF, 50], onsetSeconds: 0.08, codaSeconds: 0.08 }),
  m: k({ manner: 'nasal', voiced: true, locus: [480, 1270, 2130], bandwidths: [40, 200, 200], voicing: 0.7, afDb: OFF, nasalZeroHz: 450, onsetSeconds: 0.065, codaSeconds: 0.09 }),
  n: k({ manner: 'nasal', voiced: true, locus: [480, 1340, 2470], bandwidths: [40, 300, 300], voicing: 0.7, afDb: OFF, nasalZeroHz: 450, onsetSeconds: 0.06, codaSeconds: 0.09 }),
  ng: k({ manner: 'nasal', voiced: true, locus: [480, 1990, 2850], bandwidths: [40, 300, 300], voicing: 0.7, afDb: OFF, nasalZeroHz: 450, onsetSeconds: 0.06, codaSeconds: 0.09 }),
  nn: k({ manner: 'nasal', voiced: true, locus: [480, 1340, 2470], bandwidths: [40, 300, 300], voicing: 0.8, afDb: OFF, nasalZeroHz: 450, onsetSeconds: 0.06, codaSeconds: 0.09 }),
  l: k({ manner: 'liquid', voiced: true, locus: [310, 1050, 2880], bandwidths: [50, 100, 280], voicing: 0.85, afDb: OFF, onsetSeconds: 0.06, codaSeconds: 0.07 }),
  r: k({ manner: 'liquid', voiced: true, locus: [310, 1060, 1380], bandwidths: [70, 100, 120], voicing: 0.85, afDb: OFF, onsetSeconds: 0.06, codaSeconds: 0.07 }),
  dx: k({ manner: 'flap', voiced: true, locus: [280, 1300, 2200], bandwidths: [60, 100, 150], voicing: 0.55, afDb: OFF, onsetSeconds: 0.035, codaSeconds: 0.035 }),
  w: k({ manner: 'glide', voiced: true, locus: [290, 610, 2150], bandwidths: [50, 80, 60], voicing: 0.9, afDb: OFF, onsetSeconds: 0.05, codaSeconds: 0.05 }),
  y: k({ manner: 'glide', voiced: true, locus: [260, 2070, 3020], bandwidths: [40, 250, 500], voicing: 0.9, afDb: OFF, onsetSeconds: 0.05, codaSeconds: 0.05 }),
  cl: k({ manner: 'closure', voiced: false, locus: [300, 1500, 2500], bandwidths: [100, 100, 150], voicing: 0, afDb: OFF, parallel: NO_NOISE, onsetSeconds: 0.06, codaSeconds: 0.1 }),
  kk: k({ manner: 'stop', voiced: false, locus: [300, 1990, 2850], bandwidths: [250, 160, 330], voicing: 0, afDb: 55, parallel: [OFF, 53, 43, 45, 45, OFF], onsetSeconds: 0.08, codaSeconds: 0.07 }),
  tt: k({ manner: 'stop', voiced: false, locus: [400, 1600, 2600], bandwidths: [300, 120, 250], voicing: 0, afDb: 55, parallel: [OFF, 30, 45, 57, 63, OFF], onsetSeconds: 0.08, codaSeconds: 0.07 }),
  pp: k({ manner: 'stop', voiced: false, locus: [400, 1100, 2150], bandwidths: [300, 150, 220], voicing: 0, afDb: 46, parallel: [OFF, OFF, OFF, OFF, OFF, 63], onsetSeconds: 0.08, codaSeconds: 0.07 }),
  jj: k({ manner: 'affricate', voiced: false, locus: [350, 1800, 2820], bandwidths: [200, 90, 300], voicing: 0, afDb: 58, parallel: [OFF, 57, 50, 48, 46, OFF], onsetSeconds: 0.09, codaSeconds: 0.09 }),
  ss: k({ manner: 'fricative', voiced: false, locus: [320, 1390, 2530], bandwidths: [200, 80, 200], voicing: 0, afDb: 56, parallel: [OFF, OFF, OFF, OFF, 52, OFF], onsetSeconds: 0.13, codaSeconds: 0.11 }),
};

/** Nasal pole frequency of the murmur and of nasalised sounds, Hz (Klatt 1980). */
export const NASAL_POLE_HZ = 270;

const LONG_LAG: Partial<Record<ConsonantId, number>> = { p: 0.055, t: 0.06, k: 0.065 };
const SHORT_LAG: Partial<Record<ConsonantId, number>> = { p: 0.02, t: 0.025, k: 0.035 };
const KOREAN: Partial<Record<ConsonantId, number>> = {
  p: 0.075,
  t: 0.075,
  k: 0.085,
  ch: 0.045,
  kk: 0.012,
  tt: 0.01,
  pp: 0.01,
  jj: 0.005,
  s: 0.03,
};

/**
 * Aspiration after a consonant's release (voice onset time minus the burst), seconds.
 * @param id - the consonant
 * @param language - the singer's language: English long lag, Japanese short lag, Korean three-way
 * @param afterPause - true when the consonant starts a phrase (Korean lenis stops are then voiceless
 *   with a medium lag)
 */
export function aspirationSeconds(id: ConsonantId, language: SingerLanguage, afterPause: boolean): number {
  if (language === 'ko') {
    if (afterPause && (id === 'g' || id === 'd' || id === 'b' || id === 'jh')) return 0.035;
    return KOREAN[id] ?? 0;
  }
  return (language === 'en' ? LONG_LAG : SHORT_LAG)[id] ?? 0;
}

/** Korean lenis stops and affricate: voiceless after a pause, voiced between voiced sounds. */
export function isKoreanLenis(id: ConsonantId): boolean {
  return id === 'g' || id === 'd' || id === 'b' || id === 'jh';
}
