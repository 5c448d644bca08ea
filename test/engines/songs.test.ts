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
  it('has five songs in bgm_index order, each score file valid and public domain', () => {
    const songs = SCORE_FILES.map(parseSongScore);
    expect(songs.map((song) => song.id)).toEqual([
      'twinkle',
      'ode-to-joy',
      'sakura',
      'amazing-grace',
      'frere-jacques',
    ]);
    for (const song of songs) {
      expect(song.license).toBe('public-domain');
      expect(song.source.length).toBeGreaterThan(20);
      expect(scoreProblems(song)).toEqual([]);
    }
    expect(builtInSongs()).toEqual(songs);
  });

  it('names, for each added song, the public-domain source and what was checked', () => {
    for (const song of builtInSongs().slice(2)) {
      expect(song.source).toMatch(/public domain/i);
      expect(song.source).toMatch(/\b1[0-9]{3}\b/);
      expect(song.source).toMatch(/NOT checked against a scan/);
    }
  });

  it('lays every phrase over whole bars (after the pickup) and the chords over the whole song', () => {
    for (const song of builtInSongs()) {
      const bar = song.time[0];
      if (song.pickup === 0) for (const phrase of song.phrases) expect(phraseBeats(phrase) % bar).toBe(0);
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

  it('encodes Sakura, Amazing Grace and Frère Jacques', () => {
    const [, , sakura, grace, frere] = builtInSongs();
    expect(sakura?.phrases.map((phrase) => phrase.notes.length)).toEqual([6, 8, 8, 8, 8, 6, 6]);
    expect(sakura?.phrases[1]?.notes.map(([midi]) => midi)).toEqual([69, 71, 72, 71, 69, 71, 69, 65]);
    expect(sakura?.phrases[6]?.notes).toEqual([
      [64, 1],
      [65, 1],
      [71, 0.5],
      [69, 0.5],
      [65, 1],
      [64, 4],
    ]);
    expect(grace?.time).toEqual([3, 4]);
    expect(grace?.pickup).toBe(1);
    expect(grace?.phrases[0]?.notes.map(([midi]) => midi)).toEqual([62, 67, 71, 67, 71, 69, 67, 64, 62]);
    expect(frere?.phrases).toHaveLength(8);
    expect(frere?.phrases[4]?.notes.map(([midi]) => midi)).toEqual([67, 69, 67, 65, 64, 60]);
    expect(frere?.phrases[6]?.notes.map(([midi]) => midi)).toEqual([60, 55, 60]);
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
    expect(transposeKeyName('Am', 3)).toBe('Cm');
  });
});
