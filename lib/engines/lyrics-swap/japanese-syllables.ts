/**
 * Japanese lyric lines → mora labels and sung syllables: kuromoji reading (only when the line has
 * kanji) → katakana → morae (kana-morae.ts); English words inside the line are sung as morae
 * (english-to-morae.ts).
 */
import { analyseEnglishWord, type Pronouncer } from './english-syllables';
import { arpabetToMorae, type MoraOptions } from './english-to-morae';
import { isReadableKana, katakanaToMorae, type Mora, moraLabel, toKatakana } from './kana-morae';
import type { KanjiReader } from './kuromoji-reader';
import { classifyCharacter, splitWords } from './lyrics-characters';
import type { SungSyllable } from './syllable';

/** What a Japanese singer makes of one line. */
export interface JapaneseLine {
  readonly morae: readonly Mora[];
  readonly labels: readonly string[];
  readonly syllables: readonly SungSyllable[];
  /** Characters that cannot be sung (no reading, unknown script), in order, without repeats. */
  readonly unsupported: readonly string[];
}

/** Where the line's text comes from before mora conversion. */
type Piece =
  | { readonly kind: 'kana'; readonly text: string }
  | { readonly kind: 'word'; readonly text: string };

/** Lazily supplies the services a line may need; each is loaded only when asked for. */
export interface JapaneseLineServices {
  readonly readKanji: KanjiReader;
  readonly pronouncer: () => Promise<Pronouncer>;
}

/**
 * Turns morae into sung syllables: っ (`cl`) joins the syllable before it as a closure at the end of
 * its note (a `cl` that starts a line is silent and dropped); ー continues the previous vowel legato;
 * ん is its own syllable sung as a hummed nasal.
 */
export function moraeToSyllables(morae: readonly Mora[]): SungSyllable[] {
  const syllables: SungSyllable[] = [];
  for (const mora of morae) {
    if (mora.kind === 'cl') {
      const last = syllables.pop();
      if (last !== undefined)
        syllables.push({ ...last, text: `${last.text} cl`, coda: [...last.coda, 'cl'] });
      continue;
    }
    syllables.push({
      text: mora.romaji,
      onset: mora.onset,
      nucleus: mora.vowel ?? 'nn',
      coda: [],
      stressed: true,
      legato: mora.kind === 'long',
    });
  }
  return syllables;
}

function addUnique(list: string[], items: Iterable<string>): void {
  for (const item of items) if (!list.includes(item)) list.push(item);
}

/** Splits a line into kana and Latin-word pieces without a dictionary (no kanji present). */
function piecesWithoutKanji(text: string): Piece[] {
  const pieces: Piece[] = [];
  let kana = '';
  const flush = (): void => {
    if (kana !== '') pieces.push({ kind: 'kana', text: toKatakana(kana) });
    kana = '';
  };
  let word = '';
  const flushWord = (): void => {
    for (const part of splitWords(word)) pieces.push({ kind: 'word', text: part });
    word = '';
  };
  for (const char of text) {
    const kind = classifyCharacter(char);
    if (kind === 'kana') {
      flushWord();
      kana += char;
    } else if (kind === 'latin') {
      flush();
      word += char;
    } else {
      flush();
      flushWord();
    }
  }
  flush();
  flushWord();
  return pieces;
}

/** Splits a line with kanji into pieces using the readings of its tokens. */
async function piecesWithKanji(
  text: string,
  readKanji: KanjiReader,
  unsupported: string[],
): Promise<Piece[]> {
  const pieces: Piece[] = [];
  for (const token of await readKanji(text)) {
    const kinds = [...token.surface].map(classifyCharacter);
    if (kinds.every((kind) => kind === 'separator')) continue;
    if (kinds.some((kind) => kind === 'latin')) {
      pieces.push(...piecesWithoutKanji(token.surface));
      continue;
    }
    if (token.reading !== undefined && [...token.reading].every((char) => isReadableKana(toKatakana(char)))) {
      pieces.push({ kind: 'kana', text: toKatakana(token.reading) });
      continue;
    }
    if (kinds.every((kind) => kind === 'kana' || kind === 'separator')) {
      pieces.push(...piecesWithoutKanji(token.surface));
      continue;
    }
    addUnique(
      unsupported,
      [...token.surface].filter((char) => classifyCharacter(char) === 'kanji'),
    );
  }
  return pieces;
}

/**
 * Analyses one line for a Japanese singer.
 * @param text - the line, NFKC-normalised
 * @param services - kuromoji (called only when the line has kanji) and the CMU dictionary (called only
 *   when the line has Latin words)
 * @param options - how English words become morae (long vowels or not)
 * @returns labels such as `a shi ta he n o mi chi` (n-row split per api-notes A), the sung syllables,
 *   and the characters that cannot be sung
 */
export async function analyseJapaneseLine(
  text: string,
  services: JapaneseLineServices,
  options: MoraOptions = {},
): Promise<JapaneseLine> {
  const unsupported: string[] = [];
  addUnique(
    unsupported,
    [...text].filter((char) => {
      const kind = classifyCharacter(char);
      return kind === 'unsupported' || kind === 'hangul';
    }),
  );
  const hasKanji = [...text].some((char) => classifyCharacter(char) === 'kanji');
  const pieces = hasKanji
    ? await piecesWithKanji(text, services.readKanji, unsupported)
    : piecesWithoutKanji(text);
  const morae: Mora[] = [];
  let pronounce: Pronouncer | undefined;
  for (const piece of pieces) {
    if (piece.kind === 'kana') {
      const converted = katakanaToMorae(piece.text);
      addUnique(unsupported, converted.unreadable);
      morae.push(...converted.morae);
      continue;
    }
    pronounce ??= await services.pronouncer();
    morae.push(...arpabetToMorae(analyseEnglishWord(piece.text, pronounce).pronunciation, options));
  }
  return { morae, labels: morae.map(moraLabel), syllables: moraeToSyllables(morae), unsupported };
}
