import { describe, expect, it } from 'vitest';
import {
  analyseEnglishWord,
  englishSungSyllables,
  guessPronunciation,
  loadCmuDictionary,
  spellingSyllables,
  syllabifyArpabet,
} from '../../lib/engines/lyrics-swap/english-syllables';
import { arpabetToMorae } from '../../lib/engines/lyrics-swap/english-to-morae';

describe('syllabifyArpabet', () => {
  it('gives every vowel its own syllable and keeps stress', () => {
    const syllables = syllabifyArpabet('T W IH1 NG K AH0 L');
    expect(syllables).toEqual([
      { onset: ['T', 'W'], vowel: 'IH', coda: ['NG'], stress: 1 },
      { onset: ['K'], vowel: 'AH', coda: ['L'], stress: 0 },
    ]);
  });

  it('prefers the longest legal onset (maximal onset)', () => {
    // extra: EH1 K S T R AH0 → ek-stra
    const syllables = syllabifyArpabet('EH1 K S T R AH0');
    expect(syllables.map((s) => s.onset.join(' '))).toEqual(['', 'S T R']);
    expect(syllables[0]?.coda).toEqual(['K']);
  });
});

describe('analyseEnglishWord', () => {
  it('finds 2 syllables in twinkle and 3 in beautiful, with spelling labels', async () => {
    const pronounce = await loadCmuDictionary();
    const twinkle = analyseEnglishWord('twinkle', pronounce);
    expect(twinkle.syllables).toHaveLength(2);
    expect(twinkle.labels).toEqual(['twin', 'kle']);
    const beautiful = analyseEnglishWord('beautiful', pronounce);
    expect(beautiful.syllables).toHaveLength(3);
    expect(beautiful.labels).toEqual(['beau', 'ti', 'ful']);
    expect(analyseEnglishWord('something', pronounce).labels).toEqual(['some', 'thing']);
    expect(analyseEnglishWord('tomorrow', pronounce).labels).toEqual(['to', 'mor', 'row']);
  });

  it('falls back to letter rules for words missing from the dictionary', async () => {
    const pronounce = await loadCmuDictionary();
    const word = analyseEnglishWord('blorptastic', pronounce);
    expect(word.inDictionary).toBe(false);
    expect(word.syllables).toHaveLength(3);
    expect(word.labels.join('')).toBe('blorptastic');
  });

  it('maps syllables to the synthesizer phones, reduced AH0 as ax', async () => {
    const pronounce = await loadCmuDictionary();
    const [twin, kle] = englishSungSyllables(analyseEnglishWord('twinkle', pronounce));
    expect(twin).toMatchObject({
      text: 'twin',
      onset: ['t', 'w'],
      nucleus: 'ih',
      coda: ['ng'],
      stressed: true,
    });
    expect(kle).toMatchObject({ text: 'kle', onset: ['k'], nucleus: 'ax', coda: ['l'], stressed: false });
  });
});

describe('spellingSyllables', () => {
  it('always returns the requested number of non-empty chunks', () => {
    for (const [word, count] of [
      ['rhythm', 2],
      ['a', 1],
      ['idea', 3],
      ['fire', 2],
      ['www', 9],
    ] as const) {
      const chunks = spellingSyllables(word, count);
      expect(chunks).toHaveLength(count);
      expect(chunks.every((chunk) => chunk.length > 0)).toBe(true);
    }
  });
});

describe('guessPronunciation', () => {
  it('treats a final e as silent and lengthens the vowel before it', () => {
    expect(guessPronunciation('zome')).toBe('Z OW1 M');
    expect(guessPronunciation('brrr')).toBe('');
  });
});

describe('arpabetToMorae', () => {
  it('writes English the katakana way', () => {
    const romaji = (pronunciation: string) =>
      arpabetToMorae(pronunciation)
        .map((m) => m.romaji)
        .join(' ');
    expect(romaji('S AH1 M TH IH0 NG')).toBe('sa mu shi n gu');
    expect(romaji('L AY1 K')).toBe('ra i ku');
    expect(romaji('AH0 B AW1 T')).toBe('a ba u to');
    expect(romaji('S IH1 NG ER0')).toBe('shi n ga');
    expect(romaji('S T AA1 R')).toBe('su ta');
  });

  it('writes long vowels as an extra mora for model v2 (the spec: something like you → … yu u)', () => {
    const romaji = (pronunciation: string) =>
      arpabetToMorae(pronunciation, { longVowels: true })
        .map((m) => m.romaji)
        .join(' ');
    expect(['S AH1 M TH IH0 NG', 'L AY1 K', 'Y UW1'].map(romaji).join(' ')).toBe(
      'sa mu shi n gu ra i ku yu u',
    );
    expect(romaji('S T AA1 R')).toBe('su ta a');
    expect(romaji('AO1 L')).toBe('o o ru');
    expect(romaji('HH AE1 P IY0')).toBe('ha pi i');
    expect(romaji('G OW1')).toBe('go o');
    expect(romaji('S IH1 NG ER0')).toBe('shi n ga a');
    expect(romaji('IH1 N T UW0')).toBe('i n tsu');
  });
});
