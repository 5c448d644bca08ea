/**
 * Lyric lines → labels and sung syllables for a singer, with the 400 errors for text that cannot be
 * sung (api-notes A; lib/errors `unsupportedLyrics`).
 */
import { ValidationError } from '../../errors';
import { analyseEnglishWord, englishSungSyllables, type Pronouncer } from './english-syllables';
import { analyseJapaneseLine } from './japanese-syllables';
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
  return singer.language === 'ja'
    ? `${singer.displayName} sings Japanese (hiragana, katakana, kanji that have a dictionary reading) and English words in the letters a–z; spaces and punctuation are ignored; write numbers as words.`
    : `${singer.displayName} sings English words in the letters a–z (apostrophes allowed); spaces and punctuation are ignored; write numbers as words.`;
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

/**
 * Labels and sung syllables of every line, in order.
 * @param lines - the request's lyric lines (untrimmed)
 * @throws ValidationError `unsupportedLyrics` naming the line number and the characters when a line has
 *   characters the singer cannot sing, or no singable syllable at all
 */
export async function analyseLyrics(
  lines: readonly string[],
  singer: SingerPreset,
  services: LyricsServices,
): Promise<SyllabifiedLine[]> {
  const result: SyllabifiedLine[] = [];
  for (const [index, raw] of lines.entries()) {
    const text = normaliseLyric(raw);
    const line =
      singer.language === 'ja'
        ? await analyseJapaneseLine(text, services)
        : await analyseEnglishLine(text, services);
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
