/**
 * Katakana → morae with our own table (engine-design §3: wanakana gives ティー→"teii", ファン→"fuan",
 * and no library gives mora boundaries).
 *
 * Rules: a small ャュョ/ァィゥェォ/ヮ joins the previous kana into one mora (キョ → kyo); ッ is its own
 * mora `cl`; ン is its own mora `n`; ー repeats the previous vowel (ラーメン → ra a me n).
 */
import type { ConsonantId, JapaneseVowel } from './phones';

/** One Japanese mora. */
export interface Mora {
  /** Romaji, e.g. `kyo`, `shi`, `n`, `cl`, or a bare vowel for ー. */
  readonly romaji: string;
  /** `cv` = (consonant +) vowel, `n` = ん, `cl` = っ, `long` = ー. */
  readonly kind: 'cv' | 'n' | 'cl' | 'long';
  /** Consonants before the vowel (empty for vowels, ん, っ, ー). */
  readonly onset: readonly ConsonantId[];
  /** The vowel; `undefined` for ん and っ. */
  readonly vowel: JapaneseVowel | undefined;
}

/** Onset romaji → phones. `r` is the Japanese flap, `f` is [ɸ]. */
const ONSETS: Readonly<Record<string, readonly ConsonantId[]>> = {
  '': [],
  k: ['k'],
  ky: ['k', 'y'],
  g: ['g'],
  gy: ['g', 'y'],
  s: ['s'],
  sh: ['sh'],
  z: ['z'],
  j: ['jh'],
  t: ['t'],
  ch: ['ch'],
  ts: ['ts'],
  d: ['d'],
  n: ['n'],
  ny: ['n', 'y'],
  h: ['h'],
  hy: ['h', 'y'],
  f: ['hf'],
  fy: ['hf', 'y'],
  b: ['b'],
  by: ['b', 'y'],
  p: ['p'],
  py: ['p', 'y'],
  m: ['m'],
  my: ['m', 'y'],
  y: ['y'],
  r: ['dx'],
  ry: ['dx', 'y'],
  w: ['w'],
  v: ['v'],
  kw: ['k', 'w'],
  gw: ['g', 'w'],
  ty: ['t', 'y'],
  dy: ['d', 'y'],
};

/** [kana, romaji, onset key]; the vowel is the romaji's last letter. */
// biome-ignore format: one row of the kana chart per line
const TABLE: readonly (readonly [string, string, string])[] = [
  ['ア', 'a', ''], ['イ', 'i', ''], ['ウ', 'u', ''], ['エ', 'e', ''], ['オ', 'o', ''],
  ['カ', 'ka', 'k'], ['キ', 'ki', 'k'], ['ク', 'ku', 'k'], ['ケ', 'ke', 'k'], ['コ', 'ko', 'k'],
  ['ガ', 'ga', 'g'], ['ギ', 'gi', 'g'], ['グ', 'gu', 'g'], ['ゲ', 'ge', 'g'], ['ゴ', 'go', 'g'],
  ['サ', 'sa', 's'], ['シ', 'shi', 'sh'], ['ス', 'su', 's'], ['セ', 'se', 's'], ['ソ', 'so', 's'],
  ['ザ', 'za', 'z'], ['ジ', 'ji', 'j'], ['ズ', 'zu', 'z'], ['ゼ', 'ze', 'z'], ['ゾ', 'zo', 'z'],
  ['タ', 'ta', 't'], ['チ', 'chi', 'ch'], ['ツ', 'tsu', 'ts'], ['テ', 'te', 't'], ['ト', 'to', 't'],
  ['ダ', 'da', 'd'], ['ヂ', 'ji', 'j'], ['ヅ', 'zu', 'z'], ['デ', 'de', 'd'], ['ド', 'do', 'd'],
  ['ナ', 'na', 'n'], ['ニ', 'ni', 'n'], ['ヌ', 'nu', 'n'], ['ネ', 'ne', 'n'], ['ノ', 'no', 'n'],
  ['ハ', 'ha', 'h'], ['ヒ', 'hi', 'h'], ['フ', 'fu', 'f'], ['ヘ', 'he', 'h'], ['ホ', 'ho', 'h'],
  ['バ', 'ba', 'b'], ['ビ', 'bi', 'b'], ['ブ', 'bu', 'b'], ['ベ', 'be', 'b'], ['ボ', 'bo', 'b'],
  ['パ', 'pa', 'p'], ['ピ', 'pi', 'p'], ['プ', 'pu', 'p'], ['ペ', 'pe', 'p'], ['ポ', 'po', 'p'],
  ['マ', 'ma', 'm'], ['ミ', 'mi', 'm'], ['ム', 'mu', 'm'], ['メ', 'me', 'm'], ['モ', 'mo', 'm'],
  ['ヤ', 'ya', 'y'], ['ユ', 'yu', 'y'], ['ヨ', 'yo', 'y'],
  ['ラ', 'ra', 'r'], ['リ', 'ri', 'r'], ['ル', 'ru', 'r'], ['レ', 're', 'r'], ['ロ', 'ro', 'r'],
  ['ワ', 'wa', 'w'], ['ヲ', 'o', ''], ['ヰ', 'i', ''], ['ヱ', 'e', ''], ['ヴ', 'vu', 'v'],
  ['ァ', 'a', ''], ['ィ', 'i', ''], ['ゥ', 'u', ''], ['ェ', 'e', ''], ['ォ', 'o', ''],
  ['ャ', 'ya', 'y'], ['ュ', 'yu', 'y'], ['ョ', 'yo', 'y'], ['ヮ', 'wa', 'w'],
  ['キャ', 'kya', 'ky'], ['キュ', 'kyu', 'ky'], ['キョ', 'kyo', 'ky'],
  ['ギャ', 'gya', 'gy'], ['ギュ', 'gyu', 'gy'], ['ギョ', 'gyo', 'gy'],
  ['シャ', 'sha', 'sh'], ['シュ', 'shu', 'sh'], ['ショ', 'sho', 'sh'], ['シェ', 'she', 'sh'],
  ['ジャ', 'ja', 'j'], ['ジュ', 'ju', 'j'], ['ジョ', 'jo', 'j'], ['ジェ', 'je', 'j'],
  ['チャ', 'cha', 'ch'], ['チュ', 'chu', 'ch'], ['チョ', 'cho', 'ch'], ['チェ', 'che', 'ch'],
  ['ヂャ', 'ja', 'j'], ['ヂュ', 'ju', 'j'], ['ヂョ', 'jo', 'j'],
  ['ニャ', 'nya', 'ny'], ['ニュ', 'nyu', 'ny'], ['ニョ', 'nyo', 'ny'],
  ['ヒャ', 'hya', 'hy'], ['ヒュ', 'hyu', 'hy'], ['ヒョ', 'hyo', 'hy'],
  ['ビャ', 'bya', 'by'], ['ビュ', 'byu', 'by'], ['ビョ', 'byo', 'by'],
  ['ピャ', 'pya', 'py'], ['ピュ', 'pyu', 'py'], ['ピョ', 'pyo', 'py'],
  ['ミャ', 'mya', 'my'], ['ミュ', 'myu', 'my'], ['ミョ', 'myo', 'my'],
  ['リャ', 'rya', 'ry'], ['リュ', 'ryu', 'ry'], ['リョ', 'ryo', 'ry'],
  ['ファ', 'fa', 'f'], ['フィ', 'fi', 'f'], ['フェ', 'fe', 'f'], ['フォ', 'fo', 'f'], ['フュ', 'fyu', 'fy'],
  ['ティ', 'ti', 't'], ['トゥ', 'tu', 't'], ['テュ', 'tyu', 'ty'],
  ['ディ', 'di', 'd'], ['ドゥ', 'du', 'd'], ['デュ', 'dyu', 'dy'],
  ['ウィ', 'wi', 'w'], ['ウェ', 'we', 'w'], ['ウォ', 'wo', 'w'],
  ['ヴァ', 'va', 'v'], ['ヴィ', 'vi', 'v'], ['ヴェ', 've', 'v'], ['ヴォ', 'vo', 'v'],
  ['ツァ', 'tsa', 'ts'], ['ツィ', 'tsi', 'ts'], ['ツェ', 'tse', 'ts'], ['ツォ', 'tso', 'ts'],
  ['スィ', 'si', 's'], ['ズィ', 'zi', 'z'], ['イェ', 'ye', 'y'], ['クァ', 'kwa', 'kw'], ['グァ', 'gwa', 'gw'],
];

function toMora(romaji: string, onsetKey: string): Mora {
  const vowel = romaji.at(-1);
  const onset = ONSETS[onsetKey];
  if (
    onset === undefined ||
    (vowel !== 'a' && vowel !== 'i' && vowel !== 'u' && vowel !== 'e' && vowel !== 'o')
  ) {
    throw new Error(`kana table row ${romaji}/${onsetKey} is malformed`);
  }
  return { romaji, kind: 'cv', onset, vowel };
}

const BY_KANA: ReadonlyMap<string, Mora> = new Map(
  TABLE.map(([kana, romaji, key]) => [kana, toMora(romaji, key)]),
);
const BY_ROMAJI: ReadonlyMap<string, Mora> = new Map(
  [...TABLE].reverse().map(([, romaji, key]) => [romaji, toMora(romaji, key)]),
);

/** The mora of っ/ッ. */
export const CLOSURE_MORA: Mora = { romaji: 'cl', kind: 'cl', onset: [], vowel: undefined };
/** The mora of ん/ン. */
export const NASAL_MORA: Mora = { romaji: 'n', kind: 'n', onset: [], vowel: undefined };

const SMALL_KANA = new Set(['ァ', 'ィ', 'ゥ', 'ェ', 'ォ', 'ャ', 'ュ', 'ョ', 'ヮ']);

/**
 * A (C)V mora by its romaji, e.g. `sa`, `shi`, `fa`; also `n` and `cl`.
 * @returns `undefined` when the romaji is not in the table
 */
export function moraFromRomaji(romaji: string): Mora | undefined {
  if (romaji === 'n') return NASAL_MORA;
  if (romaji === 'cl') return CLOSURE_MORA;
  return BY_ROMAJI.get(romaji);
}

/**
 * Converts hiragana to katakana (U+3041–U+3096 → U+30A1–U+30F6); other characters pass unchanged.
 */
export function toKatakana(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code >= 0x3041 && code <= 0x3096 ? String.fromCodePoint(code + 0x60) : char;
  }
  return out;
}

/** Whether every character is a katakana this module can read (after {@link toKatakana}). */
export function isReadableKana(char: string): boolean {
  return char === 'ッ' || char === 'ン' || char === 'ー' || BY_KANA.has(char);
}

/**
 * Splits katakana into morae.
 * @param katakana - katakana only (convert hiragana with {@link toKatakana} first)
 * @returns the morae, and the characters that could not be read (in order, without repeats)
 */
export function katakanaToMorae(katakana: string): { morae: Mora[]; unreadable: string[] } {
  const morae: Mora[] = [];
  const unreadable: string[] = [];
  const chars = [...katakana];
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] ?? '';
    const next = chars[i + 1];
    if (char === 'ッ') {
      morae.push(CLOSURE_MORA);
      continue;
    }
    if (char === 'ン') {
      morae.push(NASAL_MORA);
      continue;
    }
    if (char === 'ー') {
      const vowel = morae.at(-1)?.vowel;
      // A long mark after ん/っ or at the start has no vowel to lengthen: it is dropped.
      if (vowel !== undefined) {
        morae.push({ romaji: vowel, kind: 'long', onset: [], vowel });
      }
      continue;
    }
    const pair = next !== undefined && SMALL_KANA.has(next) ? BY_KANA.get(char + next) : undefined;
    if (pair !== undefined) {
      morae.push(pair);
      i += 1;
      continue;
    }
    const single = BY_KANA.get(char);
    if (single === undefined) {
      if (!unreadable.includes(char)) unreadable.push(char);
      continue;
    }
    morae.push(single);
  }
  return { morae, unreadable };
}

/**
 * The label of a mora. Service quirk (api-notes A): n-row morae are written split, の → `n o`,
 * にゃ → `ny a`; every other mora is its romaji.
 */
export function moraLabel(mora: Mora): string {
  const match = /^(ny?)([aiueo])$/.exec(mora.romaji);
  return mora.kind === 'cv' && match !== null ? `${match[1]} ${match[2]}` : mora.romaji;
}
