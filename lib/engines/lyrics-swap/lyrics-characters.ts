/**
 * Character classes of lyric text: what each singer can read, what is a separator, what cannot be sung.
 */

/** How the analysers treat a character (after {@link normaliseLyric}). */
export type CharacterKind = 'kana' | 'kanji' | 'hangul' | 'latin' | 'separator' | 'unsupported';

/** Kanji, and the marks kuromoji reads with them (々 〆 〇 ヵ ヶ). */
const KANJI = /^[\u3005-\u3007\u30F5\u30F6\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]$/u;
/** Hiragana, katakana and the long-vowel mark ー. */
const KANA = /^[\u3041-\u3096\u30A1-\u30FA\u30FC]$/u;
const LATIN = /^[A-Za-z']$/;
/** Precomposed Hangul syllable blocks (U+AC00–U+D7A3); lone jamo are not singable syllables. */
const HANGUL = /^[\uAC00-\uD7A3]$/u;
/** Whitespace, punctuation (、。「」！？・〜 …) and a few decorations common in lyrics. */
const SEPARATOR = /^[\s\p{P}~♪♫♬☆★♡♥※]$/u;

/**
 * Normalises a lyric line: NFKC (full-width letters and half-width katakana become their usual forms)
 * and typographic apostrophes become `'`.
 */
export function normaliseLyric(text: string): string {
  return text.normalize('NFKC').replace(/[‘’`´]/g, "'");
}

/** Classifies one character of a normalised line. */
export function classifyCharacter(char: string): CharacterKind {
  if (KANJI.test(char)) return 'kanji';
  if (KANA.test(char)) return 'kana';
  if (HANGUL.test(char)) return 'hangul';
  if (LATIN.test(char)) return 'latin';
  if (SEPARATOR.test(char)) return 'separator';
  return 'unsupported';
}

/**
 * The lowercase words of a run of Latin text; apostrophes inside words stay ("don't"), anything else
 * separates words.
 */
export function splitWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z']+/g) ?? [])
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => /[a-z]/.test(word));
}
