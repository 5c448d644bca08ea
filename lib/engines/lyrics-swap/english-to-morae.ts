/**
 * English words for a Japanese singer: the CMU phonemes approximated as Japanese morae, the way
 * loanwords are written in katakana (something → サムシング → `sa mu shi n gu`; api-notes A).
 */
import { type Mora, moraFromRomaji, NASAL_MORA } from './kana-morae';

/** Japanese vowel(s) for an ARPAbet vowel; diphthongs give two morae. */
const VOWELS: Readonly<Record<string, readonly string[]>> = {
  AA: ['a'],
  AE: ['a'],
  AH: ['a'],
  AO: ['o'],
  AW: ['a', 'u'],
  AY: ['a', 'i'],
  EH: ['e'],
  ER: ['a'],
  EY: ['e', 'i'],
  IH: ['i'],
  IY: ['i'],
  OW: ['o'],
  OY: ['o', 'i'],
  UH: ['u'],
  UW: ['u'],
};

/** Kana row (romaji onset) for an ARPAbet consonant. */
const ROWS: Readonly<Record<string, string>> = {
  B: 'b',
  CH: 'ch',
  D: 'd',
  DH: 'z',
  F: 'f',
  G: 'g',
  HH: 'h',
  JH: 'j',
  K: 'k',
  L: 'r',
  M: 'm',
  N: 'n',
  P: 'p',
  R: 'r',
  S: 's',
  SH: 'sh',
  T: 't',
  TH: 's',
  V: 'b',
  W: 'w',
  Y: 'y',
  Z: 'z',
  ZH: 'j',
};

/** Irregular row + vowel spellings (katakana loanword conventions). */
const IRREGULAR: Readonly<Record<string, string>> = {
  si: 'shi',
  zi: 'ji',
  tu: 'tsu',
  du: 'do',
  hu: 'fu',
  yi: 'i',
  wu: 'u',
};

/** The epenthetic vowel katakana adds after a final consonant (t/d → o, ch/j → i, else u). */
const CODA_VOWEL: Readonly<Record<string, string>> = { t: 'o', d: 'o', ch: 'i', j: 'i' };

function syllable(row: string, vowel: string): string {
  const plain = `${row}${vowel}`;
  return IRREGULAR[plain] ?? plain;
}

function mora(romaji: string): Mora {
  const found = moraFromRomaji(romaji);
  if (found === undefined) throw new Error(`no mora "${romaji}" in the kana table`);
  return found;
}

/**
 * Whether katakana writes this vowel long (with ー), the way loanwords are spelled: ER always (スター,
 * ネバー), stressed AO/OW/UW (オール, ゴー, ユー), IY when stressed or word-final (シー, ハッピー), AA
 * before R (スター).
 */
function isLongInKatakana(vowel: string, stress: string, next: string | undefined): boolean {
  const stressed = stress === '1' || stress === '2';
  switch (vowel) {
    case 'ER':
      return true;
    case 'AO':
    case 'OW':
    case 'UW':
      return stressed;
    case 'IY':
      return stressed || next === undefined;
    case 'AA':
      return next === 'R';
    default:
      return false;
  }
}

/** Options of {@link arpabetToMorae}. */
export interface MoraOptions {
  /**
   * Write long vowels as an extra mora, as katakana does (you → ユー → `yu u`; the spec's example
   * `something like you` → `sa mu shi n gu ra i ku yu u`). Model v1 sang them short (default false).
   */
  readonly longVowels?: boolean;
}

/**
 * Approximates an English pronunciation as Japanese morae.
 * @param pronunciation - ARPAbet, e.g. `S AH1 M TH IH0 NG`
 * @returns morae, e.g. sa mu shi n gu
 */
export function arpabetToMorae(pronunciation: string, options: MoraOptions = {}): Mora[] {
  const raw = pronunciation.trim().split(/\s+/).filter(Boolean);
  const phones = raw.map((phone) => phone.replace(/\d$/, ''));
  const morae: Mora[] = [];
  let i = 0;
  // A vowel that follows a consonant is consumed with it; its long mark is added here as well.
  const addLong = (index: number): void => {
    const vowel = phones[index] ?? '';
    const single = VOWELS[vowel];
    if (options.longVowels !== true || single === undefined || single.length !== 1) return;
    if (isLongInKatakana(vowel, (raw[index] ?? '').slice(-1), phones[index + 1])) {
      morae.push(mora(single[0] ?? 'a'));
    }
  };
  while (i < phones.length) {
    const phone = phones[i] ?? '';
    const next = phones[i + 1];
    const vowels = VOWELS[phone];
    if (vowels !== undefined) {
      for (const vowel of vowels) morae.push(mora(vowel));
      addLong(i);
      i += 1;
      continue;
    }
    const nextVowels = next === undefined ? undefined : VOWELS[next];
    if (phone === 'NG') {
      // ング: a word-final ng gets "gu"; before a vowel the g starts the next mora (singer → shi n ga).
      morae.push(NASAL_MORA);
      if (next === undefined) morae.push(mora('gu'));
      if (nextVowels !== undefined) phones[i] = 'G';
      else i += 1;
      continue;
    }
    const row = ROWS[phone];
    if (row === undefined) {
      i += 1;
      continue;
    }
    if (nextVowels !== undefined) {
      const [first, ...rest] = nextVowels;
      morae.push(mora(syllable(row, first ?? 'a')));
      for (const vowel of rest) morae.push(mora(vowel));
      addLong(i + 1);
      i += 2;
      continue;
    }
    // A consonant with no vowel after it.
    if (phone === 'N' || (phone === 'M' && (next === 'P' || next === 'B' || next === 'M'))) {
      morae.push(NASAL_MORA);
    } else if (phone === 'R') {
      // Non-rhotic, as in katakana: star → スター, the r only lengthens nothing further.
    } else {
      morae.push(mora(syllable(row, CODA_VOWEL[row] ?? 'u')));
    }
    i += 1;
  }
  return morae;
}
