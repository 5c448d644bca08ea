import { describe, expect, it } from 'vitest';
import { activeRms, mixToPcm, peakDbfs } from '../../lib/engines/lyrics-swap/mix';

function tone(hz: number, seconds: number, amplitude: number, sampleRate: number): Float32Array {
  return Float32Array.from(
    { length: Math.round(seconds * sampleRate) },
    (_, n) => amplitude * Math.sin((2 * Math.PI * hz * n) / sampleRate),
  );
}

describe('mixToPcm', () => {
  const sampleRate = 8000;
  const vocal = tone(440, 2, 3, sampleRate);
  const band = tone(110, 2, 5, sampleRate);

  it('normalises the peak to −1 dBFS or below, without clipping', () => {
    const [left, right] = mixToPcm(vocal, { left: band, right: band }, 2, sampleRate);
    expect(left).toBeDefined();
    expect(right).toBeDefined();
    const peak = peakDbfs([left ?? new Int16Array(0), right ?? new Int16Array(0)]);
    expect(peak).toBeLessThanOrEqual(-1);
    expect(peak).toBeGreaterThan(-1.2);
  });

  it('puts the vocal 9 dB above the instrumental, whatever their input levels', () => {
    const [mixed] = mixToPcm(vocal, { left: band, right: band }, 1, sampleRate);
    const samples = Float32Array.from(mixed ?? [], (v) => v / 32768);
    // Separate the two tones with a one-bin DFT each, over whole periods.
    const level = (hz: number) => {
      let re = 0;
      let im = 0;
      const from = sampleRate / 2;
      const to = from + sampleRate;
      for (let n = from; n < to; n += 1) {
        re += (samples[n] ?? 0) * Math.cos((2 * Math.PI * hz * n) / sampleRate);
        im += (samples[n] ?? 0) * Math.sin((2 * Math.PI * hz * n) / sampleRate);
      }
      return Math.hypot(re, im);
    };
    expect(20 * Math.log10(level(440) / level(110))).toBeCloseTo(9, 1);
  });

  it('measures the RMS of the active part only', () => {
    const half = new Float32Array(16_000);
    half.set(tone(440, 1, 1, sampleRate));
    expect(activeRms(half, sampleRate)).toBeCloseTo(Math.SQRT1_2, 2);
  });
});
