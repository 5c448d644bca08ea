import { describe, expect, it } from 'vitest';
import { SINGERS } from '../../lib/engines/lyrics-swap';
import { parseChord, transposeKeyName } from '../../lib/engines/lyrics-swap/chords';
import {
  builtInSongs,
  parseSongScore,
  phraseBeats,
  SCORE_FILES,
  scoreProblems,
  transposition,
} from '../../lib/engines/lyrics-swap/songs';

describe('built-in songs', () => {
  it('has at least two songs, each score file valid and public domain', () => {
    expect(SCORE_FILES.length).toBeGreaterThanOrEqual(2);
    const songs = SCORE_FILES.map(parseSongScore);
    expect(songs.map((song) => song.id)).toEqual(['twinkle', 'ode-to-joy']);
    for (const song of songs) {
      expect(song.license).toBe('public-domain');
      expect(song.source.length).toBeGreaterThan(20);
      expect(scoreProblems(song)).toEqual([]);
    }
    expect(builtInSongs()).toEqual(songs);
  });

  it('lays every phrase over whole bars and the chords over the whole song', () => {
    for (const song of builtInSongs()) {
      const bar = song.time[0];
      for (const phrase of song.phrases) expect(phraseBeats(phrase) % bar).toBe(0);
      const total = song.phrases.reduce((sum, phrase) => sum + phraseBeats(phrase), 0);
      expect(song.chords.reduce((sum, [, beats]) => sum + beats, 0)).toBe(total);
      for (const [symbol] of song.chords) expect(parseChord(symbol)).toBeDefined();
    }
  });

  it('encodes the melodies of engine-design §6', () => {
    const [twinkle, ode] = builtInSongs();
    expect(twinkle?.phrases[0]?.notes.map(([midi]) => midi)).toEqual([60, 60, 67, 67, 69, 69, 67]);
    expect(twinkle?.phrases).toHaveLength(6);
    expect(ode?.phrases[2]?.notes.map(([midi]) => midi)).toEqual([
      64, 64, 66, 62, 64, 66, 67, 66, 62, 64, 66, 67, 66, 64, 62, 64, 57,
    ]);
    expect(ode?.phrases).toHaveLength(4);
  });

  it('rejects malformed or inconsistent scores', () => {
    const good = SCORE_FILES[0] as Record<string, unknown>;
    expect(() => parseSongScore({ ...good, bpm: 'fast' })).toThrow(/malformed/);
    expect(() => parseSongScore({ ...good, range: [60, 70] })).toThrow(/range/);
    expect(() => parseSongScore({ ...good, chords: [['H', 48]] })).toThrow(/chord/);
    expect(() => parseSongScore({ ...good, chords: [['C', 47]] })).toThrow(/chords last 47/);
  });
});

describe('transposition', () => {
  it('moves every song inside every singer’s range', () => {
    for (const song of builtInSongs()) {
      for (const singer of Object.values(SINGERS)) {
        const shift = transposition(song.range, singer.rangeMidi);
        expect(song.range[0] + shift).toBeGreaterThanOrEqual(singer.rangeMidi[0]);
        expect(song.range[1] + shift).toBeLessThanOrEqual(singer.rangeMidi[1]);
      }
    }
    expect(transposition([60, 69], [60, 79])).toBe(5);
    expect(transposeKeyName('C', 5)).toBe('F');
    expect(transposeKeyName('D', -5)).toBe('A');
  });
});
