/**
 * The unit the aligner places on notes and the synthesizer sings: one syllable (English) or mora
 * (Japanese), with its phones.
 */
import type { ConsonantId, NucleusId } from './phones';

/** One sung syllable. */
export interface SungSyllable {
  /** What `refs.alignment` shows, e.g. `kyo`, `n`, `twin`, `ma cl`. */
  readonly text: string;
  /** Consonants sung before the beat. */
  readonly onset: readonly ConsonantId[];
  /** The vowel (or ん) that carries the note and absorbs its length. */
  readonly nucleus: NucleusId;
  /** Consonants at the end of the syllable's last note (`cl` = the closure of っ). */
  readonly coda: readonly ConsonantId[];
  /** Lexical stress (English primary stress; every Japanese mora counts as stressed). */
  readonly stressed: boolean;
  /** Continues the previous vowel without a new attack (Japanese ー). */
  readonly legato: boolean;
}

/** One lyric line turned into labels and sung syllables. */
export interface SyllabifiedLine {
  /** Label tokens between the `SP`s, e.g. `['a', 'shi', 'ta', 'he', 'n', 'o', 'mi', 'chi']`. */
  readonly labels: readonly string[];
  /** What is sung, in order. */
  readonly syllables: readonly SungSyllable[];
}

/** The label line the result reports: `SP … SP`. */
export function labelLine(labels: readonly string[]): string {
  return ['SP', ...labels, 'SP'].join(' ');
}
