/**
 * Korean lyric lines → syllable labels and sung syllables (engine-design §3 "Korean").
 *
 * Each Hangul block is one sung syllable. The line is first turned into its standard pronunciation
 * with es-hangul's `standardizePronunciation` (liaison 넘어 → 너머, tensification 간다 → 간따,
 * nasalisation 십리 → 심니, coda neutralisation 못 → 몯); sound changes keep one block per syllable.
 * Labels are the Revised Romanization of each pronounced block (es-hangul `romanize`), e.g.
 * 아리랑 → `a ri rang`. Phones come from the block's jamo (es-hangul `disassembleCompleteCharacter`):
 *
 * - initials: lenis ㄱ ㄷ ㅂ ㅈ → g d b jh (voiced between voiced sounds, devoiced after a pause by the
 *   synthesizer), aspirated ㅋ ㅌ ㅍ ㅊ → k t p ch, tense ㄲ ㄸ ㅃ ㅉ ㅆ → kk tt pp jj ss, ㅅ → s
 *   (sh before i and y), ㄹ → flap dx (lateral l after a coda ㄹ), ㅇ → none;
 * - vowels: ㅏ a, ㅐ/ㅔ e (merged in Seoul speech), ㅓ eo [ʌ], ㅗ o, ㅜ rounded u (English uw), ㅡ eu
 *   [ɯ], ㅣ i, with y/w glides for ㅑ ㅕ ㅛ ㅠ ㅒ ㅖ ㅘ ㅙ ㅚ ㅝ ㅞ ㅟ; ㅢ is sung as i;
 * - finals (the seven coda sounds): k t p (unreleased), n m ng, l.
 */
import { disassembleCompleteCharacter, romanize, standardizePronunciation } from 'es-hangul';
import { classifyCharacter } from './lyrics-characters';
import type { ConsonantId, NucleusId } from './phones';
import type { SungSyllable, SyllabifiedLine } from './syllable';

/** What a Korean singer makes of one line. */
export interface KoreanLine extends SyllabifiedLine {
  /** Characters that cannot be sung (not Hangul syllables, separators), in order, without repeats. */
  readonly unsupported: readonly string[];
}

const INITIALS: Readonly<Record<string, readonly ConsonantId[]>> = {
  ㄱ: ['g'],
  ㄲ: ['kk'],
  ㄴ: ['n'],
  ㄷ: ['d'],
  ㄸ: ['tt'],
  ㄹ: ['dx'],
  ㅁ: ['m'],
  ㅂ: ['b'],
  ㅃ: ['pp'],
  ㅅ: ['s'],
  ㅆ: ['ss'],
  ㅇ: [],
  ㅈ: ['jh'],
  ㅉ: ['jj'],
  ㅊ: ['ch'],
  ㅋ: ['k'],
  ㅌ: ['t'],
  ㅍ: ['p'],
  ㅎ: ['h'],
};

/** Medial vowel (compound vowels as es-hangul spells them, e.g. ㅘ = `ㅗㅏ`) → [glide, nucleus]. */
const MEDIALS: Readonly<Record<string, readonly [ConsonantId | undefined, NucleusId]>> = {
  ㅏ: [undefined, 'a'],
  ㅐ: [undefined, 'e'],
  ㅑ: ['y', 'a'],
  ㅒ: ['y', 'e'],
  ㅓ: [undefined, 'eo'],
  ㅔ: [undefined, 'e'],
  ㅕ: ['y', 'eo'],
  ㅖ: ['y', 'e'],
  ㅗ: [undefined, 'o'],
  ㅗㅏ: ['w', 'a'],
  ㅗㅐ: ['w', 'e'],
  ㅗㅣ: ['w', 'e'],
  ㅛ: ['y', 'o'],
  ㅜ: [undefined, 'uw'],
  ㅜㅓ: ['w', 'eo'],
  ㅜㅔ: ['w', 'e'],
  ㅜㅣ: ['w', 'i'],
  ㅠ: ['y', 'uw'],
  ㅡ: [undefined, 'eu'],
  ㅡㅣ: [undefined, 'i'],
  ㅣ: [undefined, 'i'],
};

/**
 * Final consonant (any of the 27 batchim spellings; clusters as es-hangul spells them, e.g. ㄺ = `ㄹㄱ`)
 * → its coda sound (표준 발음법 제8–11항; most clusters are already simplified by the pronunciation).
 */
const FINALS: Readonly<Record<string, ConsonantId>> = {
  ㄱ: 'k',
  ㄲ: 'k',
  ㅋ: 'k',
  ㄱㅅ: 'k',
  ㄹㄱ: 'k',
  ㄴ: 'n',
  ㄴㅈ: 'n',
  ㄴㅎ: 'n',
  ㄷ: 't',
  ㅅ: 't',
  ㅆ: 't',
  ㅈ: 't',
  ㅊ: 't',
  ㅌ: 't',
  ㅎ: 't',
  ㄹ: 'l',
  ㄹㅂ: 'l',
  ㄹㅅ: 'l',
  ㄹㅌ: 'l',
  ㄹㅎ: 'l',
  ㅁ: 'm',
  ㄹㅁ: 'm',
  ㅂ: 'p',
  ㅍ: 'p',
  ㅂㅅ: 'p',
  ㄹㅍ: 'p',
  ㅇ: 'ng',
};

function addUnique(list: string[], items: Iterable<string>): void {
  for (const item of items) if (!list.includes(item)) list.push(item);
}

/**
 * The sung syllable of one pronounced Hangul block.
 * @param block - one precomposed syllable (U+AC00–U+D7A3)
 * @param previousCoda - the coda of the block before in the same word, if any (ㄹ + ㄹ → [ll])
 * @returns `undefined` when the character is not a Hangul syllable
 */
export function hangulSyllable(block: string, previousCoda?: ConsonantId): SungSyllable | undefined {
  const jamo = disassembleCompleteCharacter(block);
  if (jamo === undefined) return undefined;
  const initial = INITIALS[jamo.choseong];
  const medial = MEDIALS[jamo.jungseong];
  if (initial === undefined || medial === undefined) return undefined;
  const [glide, nucleus] = medial;
  let onset: ConsonantId[] = [...initial];
  const front = nucleus === 'i' || glide === 'y';
  if (jamo.choseong === 'ㅅ' && front) onset = ['sh'];
  if (jamo.choseong === 'ㄹ' && previousCoda === 'l') onset = ['l'];
  // ㅅ/ㅆ/ㅈ/ㅉ/ㅊ before y: the glide is absorbed by the palatal consonant (셔 = [ɕʌ]).
  const palatal = ['ㅅ', 'ㅆ', 'ㅈ', 'ㅉ', 'ㅊ'].includes(jamo.choseong);
  if (glide !== undefined && !(glide === 'y' && palatal)) onset.push(glide);
  const coda = jamo.jongseong === '' ? undefined : FINALS[jamo.jongseong];
  return {
    text: romanize(block),
    onset,
    nucleus,
    coda: coda === undefined ? [] : [coda],
    stressed: true,
    legato: false,
  };
}

/**
 * Analyses one line for a Korean singer.
 * @param text - the line, NFKC-normalised
 * @returns labels such as `a ri rang` (romanized pronounced blocks), the sung syllables, and the
 *   characters that cannot be sung (anything but Hangul syllables and separators)
 */
export function analyseKoreanLine(text: string): KoreanLine {
  const unsupported: string[] = [];
  addUnique(
    unsupported,
    [...text].filter((char) => {
      const kind = classifyCharacter(char);
      return kind !== 'hangul' && kind !== 'separator';
    }),
  );
  const written = [...text];
  const spoken = [...standardizePronunciation(text)];
  // Sound changes keep one block per syllable; if a future es-hangul ever breaks that, sing as written.
  const blocks = spoken.length === written.length ? spoken : written;
  const labels: string[] = [];
  const syllables: SungSyllable[] = [];
  let previousCoda: ConsonantId | undefined;
  for (const block of blocks) {
    if (classifyCharacter(block) !== 'hangul') {
      previousCoda = undefined;
      continue;
    }
    const syllable = hangulSyllable(block, previousCoda);
    if (syllable === undefined) continue;
    labels.push(syllable.text);
    syllables.push(syllable);
    previousCoda = syllable.coda[0];
  }
  return { labels, syllables, unsupported };
}
