/**
 * English words → syllables: pronunciation from the CMU Pronouncing Dictionary, phoneme syllables by
 * maximal onset with stress kept, spelling chunks for the labels, and a rule fallback for unknown words
 * (engine-design §3 "English").
 */
import type { ConsonantId, Diphthong, EnglishVowel } from './phones';
import type { SungSyllable } from './syllable';

/** Looks up a word's ARPAbet pronunciation (`T W IH1 NG K AH0 L`); `undefined` when unknown. */
export type Pronouncer = (word: string) => string | undefined;

/** One phoneme syllable. ARPAbet symbols without stress digits. */
export interface PhonemeSyllable {
  readonly onset: readonly string[];
  readonly vowel: string;
  readonly coda: readonly string[];
  /** CMU stress: 1 primary, 2 secondary, 0 none. */
  readonly stress: 0 | 1 | 2;
}

/** A word with its syllables and the spelling chunk of each (the labels). */
export interface EnglishWord {
  readonly word: string;
  /** ARPAbet with stress digits, from the dictionary or guessed. */
  readonly pronunciation: string;
  readonly syllables: readonly PhonemeSyllable[];
  /** One spelling chunk per syllable, e.g. `twin`, `kle`. */
  readonly labels: readonly string[];
  /** False when the pronunciation was guessed by the letter rules. */
  readonly inDictionary: boolean;
}

let dictionaryPromise: Promise<Pronouncer> | undefined;

/**
 * Loads the CMU dictionary (134k words, ≈130 ms, ≈100 MB) once per process, on first use.
 * @returns a pronouncer for lowercase words
 */
export function loadCmuDictionary(): Promise<Pronouncer> {
  dictionaryPromise ??= import('cmu-pronouncing-dictionary').then(({ dictionary }) => {
    return (word: string) => (Object.hasOwn(dictionary, word) ? dictionary[word] : undefined);
  });
  return dictionaryPromise;
}

const ARPABET_VOWELS = new Set([
  'AA',
  'AE',
  'AH',
  'AO',
  'AW',
  'AY',
  'EH',
  'ER',
  'EY',
  'IH',
  'IY',
  'OW',
  'OY',
  'UH',
  'UW',
]);

/** Onsets English allows word-internally (maximal onset principle); single consonants except NG. */
const LEGAL_ONSETS = new Set([
  ...[
    'B',
    'CH',
    'D',
    'DH',
    'F',
    'G',
    'HH',
    'JH',
    'K',
    'L',
    'M',
    'N',
    'P',
    'R',
    'S',
    'SH',
    'T',
    'TH',
    'V',
    'W',
    'Y',
    'Z',
    'ZH',
  ],
  ...['P R', 'P L', 'B R', 'B L', 'T R', 'D R', 'K R', 'K L', 'G R', 'G L', 'F R', 'F L', 'TH R', 'SH R'],
  ...['S P', 'S T', 'S K', 'S M', 'S N', 'S L', 'S W', 'T W', 'D W', 'K W', 'G W', 'TH W', 'S F'],
  ...['P Y', 'B Y', 'F Y', 'K Y', 'M Y', 'HH Y', 'V Y', 'G Y', 'N Y', 'L Y'],
  ...['S P R', 'S T R', 'S K R', 'S P L', 'S K W', 'S K Y', 'S P Y', 'S M Y'],
]);

/**
 * Splits an ARPAbet pronunciation into syllables: every vowel is a nucleus; the consonants between two
 * nuclei go to the next syllable as far as they form a legal onset (maximal onset), the rest is coda.
 * @param pronunciation - e.g. `T W IH1 NG K AH0 L`
 * @returns e.g. `[{onset: [T, W], vowel: IH, coda: [NG], stress: 1}, {onset: [K], vowel: AH, coda: [L], stress: 0}]`
 */
export function syllabifyArpabet(pronunciation: string): PhonemeSyllable[] {
  const phones = pronunciation.trim().split(/\s+/).filter(Boolean);
  const nuclei: number[] = [];
  phones.forEach((phone, index) => {
    if (ARPABET_VOWELS.has(phone.replace(/\d$/, ''))) nuclei.push(index);
  });
  const syllables: PhonemeSyllable[] = [];
  let onsetStart = 0;
  nuclei.forEach((nucleus, k) => {
    const nextNucleus = nuclei[k + 1];
    let codaEnd = phones.length;
    if (nextNucleus !== undefined) {
      const between = phones.slice(nucleus + 1, nextNucleus);
      let onsetLength = between.length;
      while (onsetLength > 0 && !LEGAL_ONSETS.has(between.slice(between.length - onsetLength).join(' '))) {
        onsetLength -= 1;
      }
      codaEnd = nextNucleus - onsetLength;
    }
    const vowelPhone = phones[nucleus] ?? 'AH0';
    const digit = vowelPhone.at(-1);
    syllables.push({
      onset: phones.slice(onsetStart, nucleus),
      vowel: vowelPhone.replace(/\d$/, ''),
      coda: phones.slice(nucleus + 1, codaEnd),
      stress: digit === '1' ? 1 : digit === '2' ? 2 : 0,
    });
    onsetStart = codaEnd;
  });
  return syllables;
}

const VOWEL_LETTERS = new Set(['a', 'e', 'i', 'o', 'u']);
const CONSONANT_DIGRAPHS = ['tch', 'sch', 'ch', 'sh', 'th', 'ph', 'wh', 'ck', 'ng', 'gh', 'qu'];

/** Letter ranges [start, end) of vowel groups; `y` is a vowel unless it starts the word or a group. */
function vowelGroups(word: string): { start: number; end: number }[] {
  const groups: { start: number; end: number }[] = [];
  const isVowelAt = (i: number): boolean => {
    const letter = word[i] ?? '';
    if (VOWEL_LETTERS.has(letter)) return true;
    if (letter !== 'y' || i === 0) return false;
    return !VOWEL_LETTERS.has(word[i + 1] ?? '');
  };
  for (let i = 0; i < word.length; i += 1) {
    if (!isVowelAt(i)) continue;
    const last = groups.at(-1);
    if (last !== undefined && last.end === i) last.end = i + 1;
    else groups.push({ start: i, end: i + 1 });
  }
  return groups;
}

/** Splits consonant letters into units (digraphs together); silent letters join the unit before. */
function consonantUnits(letters: string, silent: ReadonlySet<number>, offset: number): string[] {
  const units: string[] = [];
  let i = 0;
  while (i < letters.length) {
    const previous = units.at(-1);
    if (silent.has(offset + i) && previous !== undefined) {
      units[units.length - 1] = previous + (letters[i] ?? '');
      i += 1;
      continue;
    }
    const digraph = CONSONANT_DIGRAPHS.find((d) => letters.startsWith(d, i));
    const unit = digraph ?? letters[i] ?? '';
    units.push(unit);
    i += unit.length;
  }
  return units;
}

/** Cuts a word into `count` chunks of near-equal length (last resort). */
function evenChunks(word: string, count: number): string[] {
  const letters = [...word];
  const chunks: string[] = [];
  for (let k = 0; k < count; k += 1) {
    const from = Math.floor((k * letters.length) / count);
    const to = Math.floor(((k + 1) * letters.length) / count);
    chunks.push(letters.slice(from, Math.max(to, from + 1)).join(''));
  }
  return chunks.map((chunk) => (chunk === '' ? '-' : chunk));
}

/**
 * Splits a word's spelling into `count` syllable chunks for the labels: vowel-letter groups are the
 * nuclei (silent e's dropped until the count matches), one consonant goes to the next chunk (V|CV), a
 * cluster is split after its first unit (VC|CV), and a final consonant + "le" stays together (twin|kle).
 * @param word - lowercase letters and apostrophes
 * @param count - the number of phoneme syllables
 * @returns exactly `count` non-empty chunks whose concatenation is the word (except in the last-resort
 *   case of more syllables than letters)
 */
export function spellingSyllables(word: string, count: number): string[] {
  if (count <= 1) return [word];
  if (count > word.length) return evenChunks(word.padEnd(count, '-'), count);
  const groups = vowelGroups(word);
  const silent = new Set<number>();
  const removeGroup = (index: number): void => {
    const group = groups[index];
    if (group === undefined) return;
    for (let i = group.start; i < group.end; i += 1) silent.add(i);
    groups.splice(index, 1);
  };
  const isSingleE = (g: { start: number; end: number }): boolean =>
    g.end - g.start === 1 && word[g.start] === 'e';
  while (groups.length > count) {
    const last = groups.at(-1);
    if (
      last !== undefined &&
      groups.length > 1 &&
      isSingleE(last) &&
      /^(?:e|es|ed)$/.test(word.slice(last.start))
    ) {
      removeGroup(groups.length - 1);
      continue;
    }
    let removable = -1;
    for (let g = groups.length - 2; g >= 1; g -= 1) {
      const group = groups[g];
      if (group !== undefined && isSingleE(group)) {
        removable = g;
        break;
      }
    }
    if (removable >= 0) {
      removeGroup(removable);
      continue;
    }
    const first = groups[0];
    const second = groups[1];
    if (first === undefined || second === undefined) break;
    groups.splice(0, 2, { start: first.start, end: second.end });
  }
  while (groups.length < count) {
    let longest = -1;
    groups.forEach((g, index) => {
      const best = groups[longest];
      if (g.end - g.start >= 2 && (best === undefined || g.end - g.start > best.end - best.start))
        longest = index;
    });
    const group = groups[longest];
    if (group === undefined) break;
    groups.splice(
      longest,
      1,
      { start: group.start, end: group.start + 1 },
      { start: group.start + 1, end: group.end },
    );
  }
  if (groups.length !== count) return evenChunks(word, count);
  const cuts: number[] = [];
  for (let g = 0; g + 1 < groups.length; g += 1) {
    const current = groups[g];
    const next = groups[g + 1];
    if (current === undefined || next === undefined) continue;
    const between = word.slice(current.end, next.start);
    if (between === '') {
      cuts.push(next.start);
      continue;
    }
    const isFinalLe = g + 2 === groups.length && word.slice(next.start) === 'e' && between.endsWith('l');
    if (isFinalLe) {
      cuts.push(between.length >= 2 ? next.start - 2 : next.start - 1);
      continue;
    }
    const units = consonantUnits(between, silent, current.end);
    const firstUnit = units[0] ?? '';
    cuts.push(units.length <= 1 ? current.end : current.end + firstUnit.length);
  }
  const chunks: string[] = [];
  let from = 0;
  for (const cut of [...cuts, word.length]) {
    chunks.push(word.slice(from, cut));
    from = cut;
  }
  return chunks.some((chunk) => chunk === '') ? evenChunks(word, count) : chunks;
}

const GUESS_VOWEL_GROUPS: readonly (readonly [string, string])[] = [
  ['eau', 'OW'],
  ['ee', 'IY'],
  ['ea', 'IY'],
  ['ie', 'IY'],
  ['ei', 'EY'],
  ['ai', 'EY'],
  ['ay', 'EY'],
  ['ey', 'EY'],
  ['oa', 'OW'],
  ['oo', 'UW'],
  ['ou', 'AW'],
  ['ow', 'OW'],
  ['oi', 'OY'],
  ['oy', 'OY'],
  ['au', 'AO'],
  ['aw', 'AO'],
  ['ue', 'UW'],
  ['ew', 'UW'],
  ['ui', 'UW'],
];
const GUESS_SHORT: Readonly<Record<string, string>> = {
  a: 'AE',
  e: 'EH',
  i: 'IH',
  o: 'AA',
  u: 'AH',
  y: 'IY',
};
const GUESS_LONG: Readonly<Record<string, string>> = { a: 'EY', e: 'IY', i: 'AY', o: 'OW', u: 'UW', y: 'AY' };
const GUESS_CONSONANTS: readonly (readonly [string, readonly string[]])[] = [
  ['tch', ['CH']],
  ['sch', ['S', 'K']],
  ['ch', ['CH']],
  ['sh', ['SH']],
  ['th', ['TH']],
  ['ph', ['F']],
  ['wh', ['W']],
  ['ck', ['K']],
  ['ng', ['NG']],
  ['gh', []],
  ['qu', ['K', 'W']],
  ['x', ['K', 'S']],
  ['b', ['B']],
  ['d', ['D']],
  ['f', ['F']],
  ['g', ['G']],
  ['h', ['HH']],
  ['j', ['JH']],
  ['k', ['K']],
  ['l', ['L']],
  ['m', ['M']],
  ['n', ['N']],
  ['p', ['P']],
  ['q', ['K']],
  ['r', ['R']],
  ['s', ['S']],
  ['t', ['T']],
  ['v', ['V']],
  ['w', ['W']],
  ['z', ['Z']],
];

/**
 * Rough letter-to-sound rules for words missing from the dictionary (names, coinages): vowel groups
 * become one nucleus each, a final silent e lengthens the vowel before it, doubled consonants count once.
 * @param word - lowercase letters
 * @returns an ARPAbet pronunciation with stress on the first syllable, or '' when no vowel is found
 */
export function guessPronunciation(word: string): string {
  const letters = word.replace(/[^a-z]/g, '');
  const phones: string[] = [];
  let stressGiven = false;
  const vowel = (base: string): void => {
    phones.push(`${base}${stressGiven ? 0 : 1}`);
    stressGiven = true;
  };
  let i = 0;
  while (i < letters.length) {
    const rest = letters.slice(i);
    const isFinalSilentE = rest === 'e' && i > 0 && phones.length > 0;
    if (isFinalSilentE) break;
    const group = GUESS_VOWEL_GROUPS.find(([spelling]) => rest.startsWith(spelling));
    if (group !== undefined) {
      vowel(group[1]);
      i += group[0].length;
      continue;
    }
    const letter = letters[i] ?? '';
    const yIsVowel = letter === 'y' && i > 0;
    if (VOWEL_LETTERS.has(letter) || yIsVowel) {
      const magicE = /^[a-z][b-df-hj-np-tv-z]e$/.test(rest) && letter !== 'e';
      vowel((magicE ? GUESS_LONG[letter] : GUESS_SHORT[letter]) ?? 'AH');
      i += 1;
      continue;
    }
    if (letter === 'c') {
      phones.push(/^[eiy]/.test(letters[i + 1] ?? '') ? 'S' : 'K');
      i += letters[i + 1] === 'c' ? 2 : 1;
      continue;
    }
    if (letter === 'y') {
      phones.push('Y');
      i += 1;
      continue;
    }
    const consonant = GUESS_CONSONANTS.find(([spelling]) => rest.startsWith(spelling));
    if (consonant === undefined) {
      i += 1;
      continue;
    }
    phones.push(...consonant[1]);
    i += consonant[0].length;
    if (consonant[0].length === 1 && letters[i] === consonant[0]) i += 1;
  }
  return phones.some((phone) => /\d$/.test(phone)) ? phones.join(' ') : '';
}

/**
 * Analyses one English word.
 * @param word - lowercase, letters and apostrophes
 * @returns syllables (empty when the word has no vowel at all) and one spelling label per syllable
 */
export function analyseEnglishWord(word: string, pronounce: Pronouncer): EnglishWord {
  const bare = word.replace(/^'+|'+$/g, '');
  const known =
    pronounce(word) ??
    pronounce(bare) ??
    (bare.endsWith("'s") ? undefined : pronounce(bare.replace(/'/g, '')));
  const pronunciation = known ?? guessPronunciation(bare);
  const syllables = syllabifyArpabet(pronunciation);
  return {
    word: bare,
    pronunciation,
    syllables,
    labels: syllables.length === 0 ? [] : spellingSyllables(bare, syllables.length),
    inDictionary: known !== undefined,
  };
}

const CONSONANT_PHONES: Readonly<Record<string, ConsonantId>> = {
  B: 'b',
  CH: 'ch',
  D: 'd',
  DH: 'dh',
  F: 'f',
  G: 'g',
  HH: 'h',
  JH: 'jh',
  K: 'k',
  L: 'l',
  M: 'm',
  N: 'n',
  NG: 'ng',
  P: 'p',
  R: 'r',
  S: 's',
  SH: 'sh',
  T: 't',
  TH: 'th',
  V: 'v',
  W: 'w',
  Y: 'y',
  Z: 'z',
  ZH: 'zh',
};

function consonantPhones(arpabet: readonly string[]): ConsonantId[] {
  return arpabet.flatMap((phone) => {
    const mapped = CONSONANT_PHONES[phone];
    return mapped === undefined ? [] : [mapped];
  });
}

/** The synthesizer's vowel for an ARPAbet vowel; unstressed AH is the reduced vowel `ax`. */
function vowelPhone(syllable: PhonemeSyllable): EnglishVowel | Diphthong {
  if (syllable.vowel === 'AH') return syllable.stress === 0 ? 'ax' : 'ah';
  const lower = syllable.vowel.toLowerCase();
  switch (lower) {
    case 'iy':
    case 'ih':
    case 'eh':
    case 'ae':
    case 'aa':
    case 'ao':
    case 'uh':
    case 'uw':
    case 'er':
    case 'ey':
    case 'ay':
    case 'oy':
    case 'aw':
    case 'ow':
      return lower;
    default:
      return 'ax';
  }
}

/**
 * The sung syllables of an analysed word, for an English singer (labels = spelling chunks).
 */
export function englishSungSyllables(word: EnglishWord): SungSyllable[] {
  return word.syllables.map((syllable, k) => ({
    text: word.labels[k] ?? word.word,
    onset: consonantPhones(syllable.onset),
    nucleus: vowelPhone(syllable),
    coda: consonantPhones(syllable.coda),
    stressed: syllable.stress === 1,
    legato: false,
  }));
}
