/**
 * Lyric lines → labels and sung syllables for a singer, with the 400 errors for text that cannot be
 * sung (api-notes A; lib/errors `unsupportedLyrics`).
 */
import { ValidationError } from '../../errors';
import { analyseEnglishWord, englishSungSyllables, type Pronouncer } from './english-syllables';
import type { MoraOptions } from './english-to-morae';
import { analyseJapaneseLine } from './japanese-syllables';
import { analyseKoreanLine } from './korean-syllables';
import type { KanjiReader } from './kuromoji-reader';
import { classifyCharacter, normaliseLyric, splitWords } from './lyrics-characters';
import type { SingerPreset } from './singers';
import type { SungSyllable, SyllabifiedLine } from './syllable';

/** Text services, loaded on first use. */
export interface LyricsServices {
  /** Readings of text with kanji (kuromoji). */
  readonly readKanji: KanjiReader;
  /** The English pronouncing dictionary. */
  readonly pronouncer: () => Promise<Pronouncer>;
}

/** What the singer accepts, for error messages. */
export function allowedText(singer: SingerPreset): string {
  switch (singer.language) {
    case 'ja':
      return `${singer.displayName} sings Japanese (hiragana, katakana, kanji that have a dictionary reading) and English words in the letters a–z; spaces and punctuation are ignored; write numbers as words.`;
    case 'ko':
      return `${singer.displayName} sings Korean written in Hangul syllables (가–힣); spaces and punctuation are ignored; write numbers and foreign words in Hangul.`;
    default:
      return `${singer.displayName} sings English words in the letters a–z (apostrophes allowed); spaces and punctuation are ignored; write numbers as words.`;
  }
}

/** Analyses one English line for an English singer. */
async function analyseEnglishLine(
  text: string,
  services: LyricsServices,
): Promise<SyllabifiedLine & { unsupported: string[] }> {
  const unsupported = [
    ...new Set([...text].filter((char) => !['latin', 'separator'].includes(classifyCharacter(char)))),
  ];
  const words = splitWords(text);
  const labels: string[] = [];
  const syllables: SungSyllable[] = [];
  if (words.length > 0) {
    const pronounce = await services.pronouncer();
    for (const word of words) {
      const analysed = analyseEnglishWord(word, pronounce);
      labels.push(...analysed.labels);
      syllables.push(...englishSungSyllables(analysed));
    }
  }
  return { labels, syllables, unsupported };
}

function quoted(chars: readonly string[]): string {
  return chars
    .slice(0, 10)
    .map((char) => `"${char}" (U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')})`)
    .join(', ');
}

async function analyseLine(
  text: string,
  singer: SingerPreset,
  services: LyricsServices,
  options: MoraOptions,
): Promise<SyllabifiedLine & { unsupported: readonly string[] }> {
  switch (singer.language) {
    case 'ja':
      return analyseJapaneseLine(text, services, options);
    case 'ko':
      return analyseKoreanLine(text);
    default:
      return analyseEnglishLine(text, services);
  }
}

/**
 * Labels and sung syllables of every line, in order.
 * @param lines - the request's lyric lines (untrimmed)
 * @param options - text rules of the voice model (English words as Japanese morae with or without long vowels)
 * @throws ValidationError `unsupportedLyrics` naming the line number and the characters when a line has
 *   characters the singer cannot sing, or no singable syllable at all
 */
export async function analyseLyrics(
  lines: readonly string[],
  singer: SingerPreset,
  services: LyricsServices,
  options: MoraOptions = {},
): Promise<SyllabifiedLine[]> {
  const result: SyllabifiedLine[] = [];
  for (const [index, raw] of lines.entries()) {
    const text = normaliseLyric(raw);
    const line = await analyseLine(text, singer, services, options);
    if (line.unsupported.length > 0) {
      throw new ValidationError(
        'unsupportedLyrics',
        `Line ${index + 1} contains characters ${singer.displayName} cannot sing: ${quoted(line.unsupported)}. ${allowedText(singer)}`,
        { details: { line: index + 1, characters: [...line.unsupported] } },
      );
    }
    if (line.syllables.length === 0) {
      throw new ValidationError(
        'unsupportedLyrics',
        `Line ${index + 1} ("${raw.slice(0, 40)}") has no singable syllables. ${allowedText(singer)}`,
        { details: { line: index + 1 } },
      );
    }
    result.push({ labels: line.labels, syllables: line.syllables });
  }
  return result;
}
