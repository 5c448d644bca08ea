import { describe, expect, it } from 'vitest';
import { integratedLoudness, kWeighting, truePeakDb } from '../../lib/engines/lyrics-swap/loudness';
import { masterMix } from '../../lib/engines/lyrics-swap/mastering';
import { createRandom } from '../../lib/engines/lyrics-swap/prng';
import { truePeakOversampled } from './support/measure';

function sine(hz: number, seconds: number, dbfs: number, sampleRate: number, phase = 0): Float32Array {
  const amplitude = 10 ** (dbfs / 20);
  return Float32Array.from(
    { length: Math.round(seconds * sampleRate) },
    (_, n) => amplitude * Math.sin((2 * Math.PI * hz * n) / sampleRate + phase),
  );
}

function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

describe('BS.1770-4 loudness', () => {
  it('derives the K-weighting coefficients of the standard at 48 kHz', () => {
    const [shelf, highPass] = kWeighting(48_000);
    // ITU-R BS.1770-4, Tables 1 and 2.
    expect(shelf.b0).toBeCloseTo(1.53512485958697, 8);
    expect(shelf.b1).toBeCloseTo(-2.69169618940638, 8);
    expect(shelf.b2).toBeCloseTo(1.19839281085285, 8);
    expect(shelf.a1).toBeCloseTo(-1.69065929318241, 8);
    expect(shelf.a2).toBeCloseTo(0.73248077421585, 8);
    expect(highPass.a1).toBeCloseTo(-1.99004745483398, 8);
    expect(highPass.a2).toBeCloseTo(0.99007225036621, 8);
  });

  it('reads a 1 kHz stereo sine at −23 dBFS as −23 LUFS (EBU Tech 3341 cases 1–2), at 48 and 44.1 kHz', () => {
    for (const rate of [48_000, 44_100]) {
      const tone = sine(1000, 4, -23, rate);
      expect(integratedLoudness([tone, tone], rate)).toBeCloseTo(-23, 1);
      const quieter = sine(1000, 4, -33, rate);
      expect(integratedLoudness([quieter, quieter], rate)).toBeCloseTo(-33, 1);
    }
  });

  it('gates out quiet passages (Tech 3341 case 3: 10 s at −36, 60 s at −23, 10 s at −36 dBFS → −23 LUFS)', () => {
    const rate = 48_000;
    const signal = concat(sine(1000, 10, -36, rate), sine(1000, 60, -23, rate), sine(1000, 10, -36, rate));
    expect(integratedLoudness([signal, signal], rate)).toBeCloseTo(-23, 1);
    expect(integratedLoudness([new Float32Array(rate)], rate)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('finds inter-sample peaks (a quarter-rate sine sampled 45° off its peaks)', () => {
    const tone = sine(11_025, 0.5, -6, 44_100, Math.PI / 4);
    const samplePeak = 20 * Math.log10(Math.max(...tone.map(Math.abs)));
    expect(samplePeak).toBeCloseTo(-9, 0);
    expect(truePeakDb([tone])).toBeCloseTo(-6, 0);
    expect(truePeakOversampled([tone])).toBeCloseTo(-6, 0);
  });
});

describe('masterMix', () => {
  const rate = 24_000;
  const random = createRandom(7);
  // A "vocal" of loud vowel-like bursts and a noisy "band", at arbitrary levels.
  const vocal = Float32Array.from({ length: rate * 6 }, (_, n) => {
    const t = n / rate;
    const gate = Math.sin(Math.PI * ((t * 2) % 1)) ** 2;
    return 3 * gate * (Math.sin(2 * Math.PI * 220 * t) + 0.5 * Math.sin(2 * Math.PI * 660 * t + 1));
  });
  const left = Float32Array.from({ length: vocal.length }, () => 0.2 * (2 * random() - 1));
  const right = Float32Array.from(
    left,
    (value, n) => 0.5 * value + 0.3 * Math.sin(2 * Math.PI * 110 * (n / rate)),
  );

  it('normalises to −14 LUFS, keeps the true peak ≤ −1 dBTP and the vocal 6 LU over the band', () => {
    const mastered = masterMix(vocal, { left, right }, 2, rate, { withVocalStem: true });
    const float = mastered.channels.map((channel) => Float32Array.from(channel, (value) => value / 32768));
    expect(integratedLoudness(float, rate)).toBeCloseTo(-14, 0);
    expect(Math.abs(integratedLoudness(float, rate) + 14)).toBeLessThanOrEqual(0.2);
    expect(truePeakDb(float)).toBeLessThanOrEqual(-1);
    expect(truePeakOversampled(float)).toBeLessThanOrEqual(-1);
    expect(mastered.stats.integratedLufs).toBeCloseTo(integratedLoudness(float, rate), 2);
    const stem = Float32Array.from(mastered.vocal ?? [], (value) => value / 32768);
    const band = float.map((channel) => Float32Array.from(channel, (value, n) => value - (stem[n] ?? 0)));
    const over = integratedLoudness([stem, stem], rate) - integratedLoudness(band, rate);
    expect(over).toBeGreaterThan(5);
    expect(over).toBeLessThan(7);
  });

  it('folds to mono for one channel', () => {
    const mastered = masterMix(vocal, { left, right }, 1, rate);
    expect(mastered.channels).toHaveLength(1);
    expect(mastered.vocal).toBeUndefined();
    const float = Float32Array.from(mastered.channels[0] ?? [], (value) => value / 32768);
    expect(Math.abs(integratedLoudness([float], rate) + 14)).toBeLessThanOrEqual(0.2);
  });
});
