import { describe, expect, it } from 'vitest';
import {
  chooseWavFormat,
  DATA_URL_PREFIX,
  dataUrlChars,
  encodeWav,
  frameCount,
  longestAudioSeconds,
  MAX_DATA_URL_CHARS,
  wavDataUrl,
  wavFileBytes,
} from '../../lib/engines/lyrics-swap/wav-format';
import { ValidationError } from '../../lib/errors';

describe('chooseWavFormat', () => {
  it('prefers 44.1 kHz stereo, then mono, then 24 kHz mono, by predicted size (api-notes B14)', () => {
    expect(chooseWavFormat(10)).toEqual({ sampleRate: 44_100, channels: 2, bitsPerSample: 16 });
    expect(chooseWavFormat(23)).toMatchObject({ sampleRate: 44_100, channels: 2 });
    expect(chooseWavFormat(24)).toMatchObject({ sampleRate: 44_100, channels: 1 });
    expect(chooseWavFormat(46)).toMatchObject({ sampleRate: 44_100, channels: 1 });
    expect(chooseWavFormat(47)).toMatchObject({ sampleRate: 24_000, channels: 1 });
    expect(chooseWavFormat(85)).toMatchObject({ sampleRate: 24_000, channels: 1 });
  });

  it('keeps every chosen format under the data URL limit', () => {
    for (let seconds = 1; seconds < longestAudioSeconds(); seconds += 0.37) {
      const format = chooseWavFormat(seconds);
      expect(dataUrlChars(wavFileBytes(format, frameCount(seconds, format.sampleRate)))).toBeLessThanOrEqual(
        MAX_DATA_URL_CHARS,
      );
    }
  });

  it('refuses a result that cannot fit, with the limit in the message', () => {
    const limit = longestAudioSeconds();
    expect(limit).toBeGreaterThan(85);
    expect(limit).toBeLessThan(86);
    let error: unknown;
    try {
      chooseWavFormat(limit + 0.5);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'resultTooLarge', status: 413 });
    expect((error as Error).message).toContain('6 MB');
    expect((error as Error).message).toContain(`${limit.toFixed(1)} s`);
  });
});

describe('encodeWav', () => {
  it('writes canonical 16-bit PCM with interleaved little-endian samples', () => {
    const left = Int16Array.from([1, -2, 32767]);
    const right = Int16Array.from([-32767, 5, 0]);
    const bytes = encodeWav([left, right], 44_100);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const text = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
    expect(bytes.byteLength).toBe(44 + 12);
    expect([text(0), text(8), text(12), text(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(view.getUint32(4, true)).toBe(bytes.byteLength - 8);
    expect(view.getUint16(20, true)).toBe(1);
    expect(view.getUint16(22, true)).toBe(2);
    expect(view.getUint32(24, true)).toBe(44_100);
    expect(view.getUint16(34, true)).toBe(16);
    expect(view.getUint32(40, true)).toBe(12);
    expect([0, 1, 2, 3, 4, 5].map((k) => view.getInt16(44 + 2 * k, true))).toEqual([
      1, -32767, -2, 5, 32767, 0,
    ]);
    expect(wavDataUrl(bytes).startsWith(`${DATA_URL_PREFIX}UklGR`)).toBe(true);
  });
});
