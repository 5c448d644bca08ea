/**
 * The phone inventory the synthesizer sings, with its acoustic targets: vowel formant tables per voice
 * type and consonant parameters.
 *
 * Sources (engine-design.md §1.4, §1.6):
 * - Sung vowels a e i o u, F1–F5 and B1–B5 per voice type: Csound manual "Formant Values"
 *   (also hsc3-lang Vowel.hs).
 * - Japanese u is unrounded [ɯ]: F2 raised to ≈1550 Hz (female) / ≈1300 Hz (male), from the Kyoto
 *   University LPC measurements (winnie.kuis.kyoto-u.ac.jp … node104) scaled ×1.17 for women.
 * - English vowels F1–F3: Peterson & Barney 1952 means (Praat's built-in table), men / women;
 *   F4 3300 Hz (Klatt 1980 default) / ≈3900 Hz (×1.17 estimate); bandwidths after Klatt 1980 Table II.
 * - Consonant loci, bandwidths and noise spectra: Klatt 1980 JASA 67:971, Table III (male values).
 */

/** Japanese vowels (also the vowels an English word is approximated with for a Japanese singer). */
export type JapaneseVowel = 'a' | 'i' | 'u' | 'e' | 'o';
/** English monophthongs (ARPAbet, lowercase; `ax` is the reduced vowel of unstressed AH0). */
export type EnglishVowel = 'iy' | 'ih' | 'eh' | 'ae' | 'aa' | 'ao' | 'uh' | 'uw' | 'ah' | 'ax' | 'er';
/** English diphthongs, sung as a glide between two monophthongs. */
export type Diphthong = 'ey' | 'ay' | 'oy' | 'aw' | 'ow';
/** Korean vowels beyond a e i o u: ㅓ eo [ʌ] and ㅡ eu [ɯ]. */
export type KoreanVowel = 'eo' | 'eu';
/** Any vowel. */
export type VowelId = JapaneseVowel | EnglishVowel | Diphthong | KoreanVowel;
/**
 * Consonants. `hf` is Japanese ふ [ɸ], `dx` the Japanese or Korean flap r, `nn` the moraic nasal ん (sung
 * as a hummed syllable nucleus), `cl` the closure of っ; `kk tt pp jj ss` are the Korean tense (fortis)
 * consonants ㄲ ㄸ ㅃ ㅉ ㅆ.
 */
export type ConsonantId =
  | 'p'
  | 'b'
  | 't'
  | 'd'
  | 'k'
  | 'g'
  | 'ch'
  | 'jh'
  | 'ts'
  | 'f'
  | 'v'
  | 'th'
  | 'dh'
  | 's'
  | 'z'
  | 'sh'
  | 'zh'
  | 'h'
  | 'hf'
  | 'm'
  | 'n'
  | 'ng'
  | 'nn'
  | 'l'
  | 'r'
  | 'dx'
  | 'w'
  | 'y'
  | 'cl'
  | 'kk'
  | 'tt'
  | 'pp'
  | 'jj'
  | 'ss';
/** What may carry a syllable's note: a vowel, or the moraic nasal ん. */
export type NucleusId = VowelId | 'nn';
/** Voice classes of the formant tables. */
export type VoiceType = 'soprano' | 'alto' | 'tenor' | 'bass';

/** Five formant frequencies and bandwidths, Hz. */
export interface FormantSet {
  readonly frequencies: readonly [number, number, number, number, number];
  readonly bandwidths: readonly [number, number, number, number, number];
}

type Five = readonly [number, number, number, number, number];
const set = (frequencies: Five, bandwidths: Five): FormantSet => ({ frequencies, bandwidths });

/** Csound "Formant Values" (sung vowels), per voice type. */
const SUNG_VOWELS: Readonly<Record<VoiceType, Readonly<Record<JapaneseVowel, FormantSet>>>> = {
  soprano: {
    a: set([800, 1150, 2900, 3900, 4950], [80, 90, 120, 130, 140]),
    e: set([350, 2000, 2800, 3600, 4950], [60, 100, 120, 150, 200]),
    i: set([270, 2140, 2950, 3900, 4950], [60, 90, 100, 120, 120]),
    o: set([450, 800, 2830, 3800, 4950], [70, 80, 100, 130, 135]),
    u: set([325, 700, 2700, 3800, 4950], [50, 60, 170, 180, 200]),
  },
  alto: {
    a: set([800, 1150, 2800, 3500, 4950], [80, 90, 120, 130, 140]),
    e: set([400, 1600, 2700, 3300, 4950], [60, 80, 120, 150, 200]),
    i: set([350, 1700, 2700, 3700, 4950], [50, 100, 120, 150, 200]),
    o: set([450, 800, 2830, 3500, 4950], [70, 80, 100, 130, 135]),
    u: set([325, 700, 2530, 3500, 4950], [50, 60, 170, 180, 200]),
  },
  tenor: {
    a: set([650, 1080, 2650, 2900, 3250], [80, 90, 120, 130, 140]),
    e: set([400, 1700, 2600, 3200, 3580], [70, 80, 100, 120, 120]),
    i: set([290, 1870, 2800, 3250, 3540], [40, 90, 100, 120, 120]),
    o: set([400, 800, 2600, 2800, 3000], [40, 80, 100, 120, 120]),
    u: set([350, 600, 2700, 2900, 3300], [40, 60, 100, 120, 120]),
  },
  bass: {
    a: set([600, 1040, 2250, 2450, 2750], [60, 70, 110, 120, 130]),
    e: set([400, 1620, 2400, 2800, 3100], [40, 80, 100, 120, 120]),
    i: set([250, 1750, 2600, 3050, 3340], [60, 90, 100, 120, 120]),
    o: set([400, 750, 2400, 2600, 2900], [40, 80, 100, 120, 120]),
    u: set([350, 600, 2400, 2675, 2950], [40, 80, 100, 120, 120]),
  },
};

/** Japanese u is unrounded: F2 of [ɯ] (Kyoto LPC data, female ×1.17 estimate). */
const JAPANESE_U_F2: Readonly<Record<VoiceType, number>> = {
  soprano: 1550,
  alto: 1500,
  tenor: 1300,
  bass: 1250,
};

/** Peterson & Barney 1952 F1–F3 means [men, women] and Klatt-style B1–B3. `ax` is an estimate (neutral tract). */
const ENGLISH_VOWELS: Readonly<
  Record<
    EnglishVowel,
    {
      men: readonly [number, number, number];
      women: readonly [number, number, number];
      b: readonly [number, number, number];
    }
  >
> = {
  iy: { men: [267, 2294, 2937], women: [310, 2783, 3312], b: [50, 200, 400] },
  ih: { men: [392, 1993, 2569], women: [441, 2474, 3063], b: [60, 100, 150] },
  eh: { men: [526, 1854, 2481], women: [608, 2334, 2999], b: [70, 100, 150] },
  ae: { men: [664, 1727, 2420], women: [863, 2049, 2832], b: [70, 150, 320] },
  aa: { men: [718, 1091, 2442], women: [864, 1229, 2783], b: [130, 70, 160] },
  ao: { men: [568, 836, 2403], women: [587, 915, 2736], b: [90, 80, 150] },
  uh: { men: [437, 1023, 2245], women: [469, 1162, 2685], b: [70, 100, 150] },
  uw: { men: [307, 876, 2239], women: [378, 961, 2666], b: [65, 110, 140] },
  ah: { men: [631, 1192, 2377], women: [758, 1409, 2768], b: [80, 100, 150] },
  ax: { men: [500, 1500, 2500], women: [585, 1755, 2925], b: [80, 100, 150] },
  er: { men: [489, 1360, 1709], women: [503, 1641, 1977], b: [80, 100, 120] },
};

/** English F4/F5 (Hz) and B4/B5 by voice type (Klatt defaults; female ×1.17 estimate; Csound F5). */
const ENGLISH_UPPER: Readonly<
  Record<VoiceType, { f: readonly [number, number]; b: readonly [number, number] }>
> = {
  soprano: { f: [3900, 4950], b: [250, 200] },
  alto: { f: [3700, 4950], b: [250, 200] },
  tenor: { f: [3300, 3850], b: [250, 200] },
  bass: { f: [3100, 3600], b: [250, 200] },
};

/** Diphthongs as onset → offset monophthongs (Klatt 1980 glide targets, approximated by table vowels). */
export const DIPHTHONGS: Readonly<Record<Diphthong, readonly [EnglishVowel, EnglishVowel]>> = {
  ey: ['eh', 'iy'],
  ay: ['aa', 'ih'],
  oy: ['ao', 'ih'],
  aw: ['aa', 'uh'],
  ow: ['ao', 'uh'],
};

const JAPANESE_VOWELS: ReadonlySet<string> = new Set(['a', 'i', 'u', 'e', 'o']);

/** Whether a nucleus is a Japanese vowel. */
export function isJapaneseVowel(id: string): id is JapaneseVowel {
  return JAPANESE_VOWELS.has(id);
}

/** Whether a vowel is an English diphthong. */
export function isDiphthong(id: VowelId): id is Diphthong {
  return id in DIPHTHONGS;
}

/** Women's or men's formant values for a voice type. */
function isFemale(voice: VoiceType): boolean {
  return voice === 'soprano' || voice === 'alto';
}

/**
 * Formant targets of a monophthong for a voice type.
 * @param vowel - a Japanese or English monophthong (diphthongs: use {@link DIPHTHONGS})
 * @returns F1–F5 and B1–B5 in Hz
 */
export function vowelFormants(
  vowel: JapaneseVowel | EnglishVowel | KoreanVowel,
  voice: VoiceType,
): FormantSet {
  if (vowel === 'eo' || vowel === 'eu') return koreanVowelFormants(vowel, voice);
  if (isJapaneseVowel(vowel)) {
    const base = SUNG_VOWELS[voice][vowel];
    if (vowel !== 'u') return base;
    const [f1, , f3, f4, f5] = base.frequencies;
    const [b1, , b3, b4, b5] = base.bandwidths;
    return set([f1, JAPANESE_U_F2[voice], f3, f4, f5], [b1, 100, b3, b4, b5]);
  }
  const row = ENGLISH_VOWELS[vowel];
  const [f1, f2, f3] = isFemale(voice) ? row.women : row.men;
  const upper = ENGLISH_UPPER[voice];
  return set([f1, f2, f3, upper.f[0], upper.f[1]], [row.b[0], row.b[1], row.b[2], upper.b[0], upper.b[1]]);
}

/**
 * Korean ㅓ [ʌ] and ㅡ [ɯ] (engine-design §1.6 b, estimates): ㅓ lies between a and o (geometric mean of
 * their formants), ㅡ is the unrounded high back vowel, sung like Japanese u.
 */
function koreanVowelFormants(vowel: KoreanVowel, voice: VoiceType): FormantSet {
  if (vowel === 'eu') return vowelFormants('u', voice);
  const a = SUNG_VOWELS[voice].a;
  const o = SUNG_VOWELS[voice].o;
  const mean = (i: number, table: 'frequencies' | 'bandwidths'): number =>
    Math.round(Math.sqrt((a[table][i] ?? 0) * (o[table][i] ?? 0)));
  return set(
    [
      mean(0, 'frequencies'),
      mean(1, 'frequencies'),
      mean(2, 'frequencies'),
      mean(3, 'frequencies'),
      mean(4, 'frequencies'),
    ],
    [
      mean(0, 'bandwidths'),
      mean(1, 'bandwidths'),
      mean(2, 'bandwidths'),
      mean(3, 'bandwidths'),
      mean(4, 'bandwidths'),
    ],
  );
}

/** How a consonant is produced. */
export type ConsonantKind =
  | 'stop'
  | 'affricate'
  | 'fricative'
  | 'aspirate'
  | 'nasal'
  | 'liquid'
  | 'glide'
  | 'flap'
  | 'closure';

/** A band of noise: centre and bandwidth in Hz, level relative to a full vowel (linear). */
export interface NoiseBand {
  readonly hz: number;
  readonly bandwidthHz: number;
  readonly level: number;
}

/** What both models' consonant tables give for every consonant. */
export interface ConsonantBasics {
  readonly voiced: boolean;
  /** F1–F3 locus for an adult male, Hz (Klatt 1980 Table III); scaled for female voices. */
  readonly locus: readonly [number, number, number];
  /** B1–B3 during the consonant, Hz. */
  readonly bandwidths: readonly [number, number, number];
  /** Voicing amplitude during the consonant (0–1 of a vowel): voice bar, murmur, voiced frication. */
  readonly voicing: number;
  /** Length before the beat when it starts a syllable, seconds (UTAU preutterance defaults, §1.4). */
  readonly onsetSeconds: number;
  /** Length when it ends a syllable, seconds. */
  readonly codaSeconds: number;
}

/** Acoustic description of a consonant. */
export interface ConsonantSpec extends ConsonantBasics {
  readonly kind: ConsonantKind;
  /** Frication (fricatives, affricates) or release burst (stops) spectrum. */
  readonly noise?: NoiseBand;
  /** Aspiration after a voiceless stop's release (voice onset time), seconds. */
  readonly aspirationSeconds?: number;
}

const c = (spec: ConsonantSpec): ConsonantSpec => spec;
const NASAL_B: readonly [number, number, number] = [60, 300, 300];

/** Consonant parameters; numbers are starting values from Klatt 1980 Table III and §1.4 timings. */
// biome-ignore format: one consonant per line
export const CONSONANTS: Readonly<Record<ConsonantId, ConsonantSpec>> = {
  p: c({ kind: 'stop', voiced: false, locus: [400, 1100, 2150], bandwidths: [300, 150, 200], voicing: 0, onsetSeconds: 0.06, codaSeconds: 0.07, noise: { hz: 1100, bandwidthHz: 2500, level: 0.35 }, aspirationSeconds: 0.025 }),
  b: c({ kind: 'stop', voiced: true, locus: [200, 1100, 2150], bandwidths: [60, 110, 130], voicing: 0.22, onsetSeconds: 0.05, codaSeconds: 0.06, noise: { hz: 1100, bandwidthHz: 2500, level: 0.18 } }),
  t: c({ kind: 'stop', voiced: false, locus: [400, 1600, 2600], bandwidths: [300, 120, 250], voicing: 0, onsetSeconds: 0.06, codaSeconds: 0.07, noise: { hz: 4200, bandwidthHz: 3000, level: 0.45 }, aspirationSeconds: 0.025 }),
  d: c({ kind: 'stop', voiced: true, locus: [200, 1600, 2600], bandwidths: [60, 100, 170], voicing: 0.22, onsetSeconds: 0.05, codaSeconds: 0.06, noise: { hz: 3800, bandwidthHz: 3000, level: 0.25 } }),
  k: c({ kind: 'stop', voiced: false, locus: [300, 1990, 2850], bandwidths: [250, 160, 330], voicing: 0, onsetSeconds: 0.065, codaSeconds: 0.07, noise: { hz: 2300, bandwidthHz: 1200, level: 0.45 }, aspirationSeconds: 0.03 }),
  g: c({ kind: 'stop', voiced: true, locus: [200, 1990, 2850], bandwidths: [60, 150, 280], voicing: 0.22, onsetSeconds: 0.05, codaSeconds: 0.06, noise: { hz: 2200, bandwidthHz: 1200, level: 0.25 } }),
  ch: c({ kind: 'affricate', voiced: false, locus: [350, 1800, 2820], bandwidths: [200, 90, 300], voicing: 0, onsetSeconds: 0.1, codaSeconds: 0.1, noise: { hz: 3300, bandwidthHz: 2200, level: 0.5 } }),
  jh: c({ kind: 'affricate', voiced: true, locus: [260, 1800, 2820], bandwidths: [60, 80, 270], voicing: 0.35, onsetSeconds: 0.09, codaSeconds: 0.09, noise: { hz: 3200, bandwidthHz: 2200, level: 0.3 } }),
  ts: c({ kind: 'affricate', voiced: false, locus: [350, 1600, 2600], bandwidths: [200, 90, 200], voicing: 0, onsetSeconds: 0.1, codaSeconds: 0.1, noise: { hz: 5500, bandwidthHz: 2500, level: 0.45 } }),
  f: c({ kind: 'fricative', voiced: false, locus: [340, 1100, 2080], bandwidths: [200, 120, 150], voicing: 0, onsetSeconds: 0.09, codaSeconds: 0.1, noise: { hz: 6000, bandwidthHz: 7000, level: 0.16 } }),
  v: c({ kind: 'fricative', voiced: true, locus: [220, 1100, 2080], bandwidths: [60, 120, 150], voicing: 0.45, onsetSeconds: 0.08, codaSeconds: 0.08, noise: { hz: 6000, bandwidthHz: 7000, level: 0.1 } }),
  th: c({ kind: 'fricative', voiced: false, locus: [320, 1290, 2540], bandwidths: [200, 90, 200], voicing: 0, onsetSeconds: 0.09, codaSeconds: 0.1, noise: { hz: 6500, bandwidthHz: 6000, level: 0.14 } }),
  dh: c({ kind: 'fricative', voiced: true, locus: [270, 1290, 2540], bandwidths: [60, 80, 170], voicing: 0.5, onsetSeconds: 0.07, codaSeconds: 0.08, noise: { hz: 6500, bandwidthHz: 6000, level: 0.08 } }),
  s: c({ kind: 'fricative', voiced: false, locus: [320, 1390, 2530], bandwidths: [200, 80, 200], voicing: 0, onsetSeconds: 0.11, codaSeconds: 0.11, noise: { hz: 5500, bandwidthHz: 2500, level: 0.55 } }),
  z: c({ kind: 'fricative', voiced: true, locus: [240, 1390, 2530], bandwidths: [70, 60, 180], voicing: 0.45, onsetSeconds: 0.09, codaSeconds: 0.09, noise: { hz: 5500, bandwidthHz: 2500, level: 0.3 } }),
  sh: c({ kind: 'fricative', voiced: false, locus: [300, 1840, 2750], bandwidths: [200, 100, 300], voicing: 0, onsetSeconds: 0.11, codaSeconds: 0.11, noise: { hz: 3300, bandwidthHz: 2200, level: 0.55 } }),
  zh: c({ kind: 'fricative', voiced: true, locus: [300, 1840, 2750], bandwidths: [60, 100, 300], voicing: 0.45, onsetSeconds: 0.09, codaSeconds: 0.09, noise: { hz: 3300, bandwidthHz: 2200, level: 0.3 } }),
  h: c({ kind: 'aspirate', voiced: false, locus: [450, 1450, 2450], bandwidths: [300, 160, 250], voicing: 0, onsetSeconds: 0.08, codaSeconds: 0.06 }),
  hf: c({ kind: 'fricative', voiced: false, locus: [340, 1100, 2080], bandwidths: [200, 120, 150], voicing: 0, onsetSeconds: 0.08, codaSeconds: 0.08, noise: { hz: 2500, bandwidthHz: 5000, level: 0.14 } }),
  m: c({ kind: 'nasal', voiced: true, locus: [280, 1100, 2150], bandwidths: NASAL_B, voicing: 0.55, onsetSeconds: 0.065, codaSeconds: 0.09 }),
  n: c({ kind: 'nasal', voiced: true, locus: [280, 1400, 2470], bandwidths: NASAL_B, voicing: 0.55, onsetSeconds: 0.06, codaSeconds: 0.09 }),
  ng: c({ kind: 'nasal', voiced: true, locus: [280, 1990, 2700], bandwidths: NASAL_B, voicing: 0.5, onsetSeconds: 0.06, codaSeconds: 0.09 }),
  nn: c({ kind: 'nasal', voiced: true, locus: [280, 1400, 2470], bandwidths: NASAL_B, voicing: 0.65, onsetSeconds: 0.06, codaSeconds: 0.09 }),
  l: c({ kind: 'liquid', voiced: true, locus: [310, 1050, 2880], bandwidths: [50, 100, 280], voicing: 0.8, onsetSeconds: 0.06, codaSeconds: 0.07 }),
  r: c({ kind: 'liquid', voiced: true, locus: [310, 1060, 1380], bandwidths: [70, 100, 120], voicing: 0.8, onsetSeconds: 0.06, codaSeconds: 0.07 }),
  dx: c({ kind: 'flap', voiced: true, locus: [300, 1300, 2200], bandwidths: [60, 100, 150], voicing: 0.55, onsetSeconds: 0.035, codaSeconds: 0.035 }),
  w: c({ kind: 'glide', voiced: true, locus: [290, 610, 2150], bandwidths: [50, 80, 60], voicing: 0.85, onsetSeconds: 0.05, codaSeconds: 0.05 }),
  y: c({ kind: 'glide', voiced: true, locus: [260, 2070, 3020], bandwidths: [40, 250, 500], voicing: 0.85, onsetSeconds: 0.05, codaSeconds: 0.05 }),
  cl: c({ kind: 'closure', voiced: false, locus: [300, 1500, 2500], bandwidths: [100, 100, 150], voicing: 0, onsetSeconds: 0.06, codaSeconds: 0.1 }),
  kk: c({ kind: 'stop', voiced: false, locus: [300, 1990, 2850], bandwidths: [250, 160, 330], voicing: 0, onsetSeconds: 0.08, codaSeconds: 0.07, noise: { hz: 2300, bandwidthHz: 1200, level: 0.5 } }),
  tt: c({ kind: 'stop', voiced: false, locus: [400, 1600, 2600], bandwidths: [300, 120, 250], voicing: 0, onsetSeconds: 0.08, codaSeconds: 0.07, noise: { hz: 4200, bandwidthHz: 3000, level: 0.5 } }),
  pp: c({ kind: 'stop', voiced: false, locus: [400, 1100, 2150], bandwidths: [300, 150, 200], voicing: 0, onsetSeconds: 0.08, codaSeconds: 0.07, noise: { hz: 1100, bandwidthHz: 2500, level: 0.4 } }),
  jj: c({ kind: 'affricate', voiced: false, locus: [350, 1800, 2820], bandwidths: [200, 90, 300], voicing: 0, onsetSeconds: 0.1, codaSeconds: 0.1, noise: { hz: 3300, bandwidthHz: 2200, level: 0.5 } }),
  ss: c({ kind: 'fricative', voiced: false, locus: [320, 1390, 2530], bandwidths: [200, 80, 200], voicing: 0, onsetSeconds: 0.13, codaSeconds: 0.11, noise: { hz: 5500, bandwidthHz: 2500, level: 0.6 } }),
};

/** Women's formants are ≈1.15–1.17× men's (Peterson–Barney ratio, engine-design §1.6 b). */
export function locusScale(voice: VoiceType): number {
  return isFemale(voice) ? 1.15 : 1;
}
