import { describe, expect, it } from 'vitest';
import { analyseKoreanLine, hangulSyllable } from '../../lib/engines/lyrics-swap/korean-syllables';
import { normaliseLyric } from '../../lib/engines/lyrics-swap/lyrics-characters';

describe('Hangul → sung syllables', () => {
  it('romanizes each block: 아리랑 아리랑 아라리요 → a ri rang a ri rang a ra ri yo', () => {
    const line = analyseKoreanLine(normaliseLyric('아리랑 아리랑 아라리요'));
    expect(line.labels.join(' ')).toBe('a ri rang a ri rang a ra ri yo');
    expect(line.unsupported).toEqual([]);
    expect(line.syllables[2]).toMatchObject({ onset: ['dx'], nucleus: 'a', coda: ['ng'], stressed: true });
  });

  it('sings the standard pronunciation: liaison, tensification, nasalisation', () => {
    expect(analyseKoreanLine('넘어간다').labels).toEqual(['neo', 'meo', 'gan', 'tta']);
    const fence = analyseKoreanLine('십리도');
    expect(fence.labels).toEqual(['sim', 'ni', 'do']);
    expect(fence.syllables[0]?.coda).toEqual(['m']);
  });

  it('maps the vowels eo [ʌ], eu [ɯ], rounded u and the y/w glides', () => {
    expect(hangulSyllable('너')).toMatchObject({ onset: ['n'], nucleus: 'eo' });
    expect(hangulSyllable('그')).toMatchObject({ onset: ['g'], nucleus: 'eu' });
    expect(hangulSyllable('구')).toMatchObject({ nucleus: 'uw' });
    expect(hangulSyllable('여')).toMatchObject({ onset: ['y'], nucleus: 'eo' });
    expect(hangulSyllable('와')).toMatchObject({ onset: ['w'], nucleus: 'a' });
    expect(hangulSyllable('의')).toMatchObject({ onset: [], nucleus: 'i' });
  });

  it('keeps the three stop series apart and finals as codas', () => {
    expect(hangulSyllable('가')?.onset).toEqual(['g']);
    expect(hangulSyllable('카')?.onset).toEqual(['k']);
    expect(hangulSyllable('까')?.onset).toEqual(['kk']);
    expect(hangulSyllable('짜')?.onset).toEqual(['jj']);
    expect(hangulSyllable('싸')?.onset).toEqual(['ss']);
    expect(hangulSyllable('시')?.onset).toEqual(['sh']);
    expect(hangulSyllable('밥')?.coda).toEqual(['p']);
    expect(hangulSyllable('닭')?.coda).toEqual(['k']);
    expect(hangulSyllable('발')?.coda).toEqual(['l']);
    expect(hangulSyllable('리', 'l')?.onset).toEqual(['l']);
    expect(hangulSyllable('a')).toBeUndefined();
  });

  it('reports what it cannot sing: Latin letters, kana, lone jamo (as NFKC makes them), digits', () => {
    const line = analyseKoreanLine(normaliseLyric('사랑 love さ ㅋㅋ 7'));
    expect(line.labels).toEqual(['sa', 'rang']);
    expect(line.unsupported).toEqual(['l', 'o', 'v', 'e', 'さ', '\u110F', '7']);
  });
});
