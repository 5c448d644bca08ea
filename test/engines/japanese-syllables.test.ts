import { describe, expect, it } from 'vitest';
import { loadCmuDictionary } from '../../lib/engines/lyrics-swap/english-syllables';
import { analyseJapaneseLine, moraeToSyllables } from '../../lib/engines/lyrics-swap/japanese-syllables';
import { katakanaToMorae, moraLabel, toKatakana } from '../../lib/engines/lyrics-swap/kana-morae';
import { createKuromojiReader, type KanjiReader } from '../../lib/engines/lyrics-swap/kuromoji-reader';
import { normaliseLyric } from '../../lib/engines/lyrics-swap/lyrics-characters';
import { labelLine } from '../../lib/engines/lyrics-swap/syllable';

const refuseKanji: KanjiReader = async () => {
  throw new Error('kuromoji must not be loaded for this line');
};

function labelsOf(kana: string): string {
  return katakanaToMorae(toKatakana(kana)).morae.map(moraLabel).join(' ');
}

describe('kana → morae', () => {
  it('joins a small ゃゅょ/ぁぃぅぇぉ with the kana before it', () => {
    expect(labelsOf('キョウ')).toBe('kyo u');
    expect(labelsOf('しゃしん')).toBe('sha shi n');
    expect(labelsOf('ティーファン')).toBe('ti i fa n');
  });

  it('makes っ its own mora "cl" and ん its own mora "n"', () => {
    expect(labelsOf('ちょっと')).toBe('cho cl to');
    expect(labelsOf('さんぽ')).toBe('sa n po');
  });

  it('repeats the previous vowel for ー', () => {
    expect(labelsOf('ラーメン')).toBe('ra a me n');
    expect(labelsOf('スーパー')).toBe('su u pa a');
  });

  it('splits n-row morae in the labels only (service quirk)', () => {
    const { morae } = katakanaToMorae('ノニャ');
    expect(morae.map((mora) => mora.romaji)).toEqual(['no', 'nya']);
    expect(morae.map(moraLabel)).toEqual(['n o', 'ny a']);
  });

  it('reports kana it cannot read', () => {
    expect(katakanaToMorae('アヽイ').unreadable).toEqual(['ヽ']);
  });
});

describe('morae → sung syllables', () => {
  it('puts っ as a closure at the end of the syllable before it and keeps ー legato', () => {
    const syllables = moraeToSyllables(katakanaToMorae('マッテー').morae);
    expect(syllables.map((s) => s.text)).toEqual(['ma cl', 'te', 'e']);
    expect(syllables[0]?.coda).toEqual(['cl']);
    expect(syllables[2]?.legato).toBe(true);
    expect(syllables[2]?.nucleus).toBe('e');
  });

  it('sings ん as a nasal nucleus', () => {
    const syllables = moraeToSyllables(katakanaToMorae('ン').morae);
    expect(syllables).toEqual([expect.objectContaining({ text: 'n', nucleus: 'nn', onset: [] })]);
  });
});

describe('analyseJapaneseLine', () => {
  const services = { readKanji: createKuromojiReader(), pronouncer: loadCmuDictionary };

  it('reads kanji with kuromoji: 明日への道 → SP a shi ta he n o mi chi SP', async () => {
    const line = await analyseJapaneseLine(normaliseLyric('明日への道'), services);
    expect(labelLine(line.labels)).toBe('SP a shi ta he n o mi chi SP');
    expect(line.syllables.map((s) => s.text)).toEqual(['a', 'shi', 'ta', 'he', 'no', 'mi', 'chi']);
    expect(line.unsupported).toEqual([]);
  });

  it('never asks for kanji readings when the line is kana only', async () => {
    const line = await analyseJapaneseLine(normaliseLyric('きらきら ひかる、ｷｮｳ'), {
      readKanji: refuseKanji,
      pronouncer: loadCmuDictionary,
    });
    expect(line.labels.join(' ')).toBe('ki ra ki ra hi ka ru kyo u');
  });

  it('sings English words as morae (something → sa mu shi n gu)', async () => {
    const line = await analyseJapaneseLine('something like you', {
      readKanji: refuseKanji,
      pronouncer: loadCmuDictionary,
    });
    expect(line.labels.join(' ')).toBe('sa mu shi n gu ra i ku yu');
  });

  it('lists characters it cannot sing', async () => {
    const line = await analyseJapaneseLine(normaliseLyric('あ7い★안'), services);
    expect(line.unsupported).toEqual(['7', '안']);
  });
});
