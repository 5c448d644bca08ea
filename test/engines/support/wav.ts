/**
 * Reads 16-bit PCM WAV bytes or data URLs by hand (independent of the engine's encoder), for tests.
 */

/** Decoded audio: channels as floats (full scale ±1). */
export interface DecodedAudio {
  readonly sampleRate: number;
  readonly bitsPerSample: number;
  readonly audioFormat: number;
  readonly channels: Float32Array[];
}

/** The bytes of a `data:audio/wav;base64,` URL. @throws Error for another prefix */
export function dataUrlBytes(url: unknown): Uint8Array {
  const prefix = 'data:audio/wav;base64,';
  if (typeof url !== 'string' || !url.startsWith(prefix)) throw new Error('not a WAV data URL');
  return Buffer.from(url.slice(prefix.length), 'base64');
}

/** Parses a RIFF/WAVE file with a 16-bit PCM data chunk. @throws Error when malformed */
export function decodeWav(file: Uint8Array): DecodedAudio {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  const tag = (offset: number): string => bytes.toString('latin1', offset, offset + 4);
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE' || bytes.readUInt32LE(4) !== bytes.length - 8) {
    throw new Error('not a RIFF/WAVE file');
  }
  let offset = 12;
  let format:
    | { audioFormat: number; channels: number; sampleRate: number; bitsPerSample: number }
    | undefined;
  while (offset + 8 <= bytes.length) {
    const id = tag(offset);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      format = {
        audioFormat: bytes.readUInt16LE(offset + 8),
        channels: bytes.readUInt16LE(offset + 10),
        sampleRate: bytes.readUInt32LE(offset + 12),
        bitsPerSample: bytes.readUInt16LE(offset + 22),
      };
    }
    if (id === 'data' && format !== undefined) {
      const frames = size / (2 * format.channels);
      const channels = Array.from({ length: format.channels }, () => new Float32Array(frames));
      for (let n = 0; n < frames; n += 1) {
        for (let c = 0; c < format.channels; c += 1) {
          const channel = channels[c];
          if (channel !== undefined)
            channel[n] = bytes.readInt16LE(offset + 8 + 2 * (n * format.channels + c)) / 32768;
        }
      }
      return {
        sampleRate: format.sampleRate,
        bitsPerSample: format.bitsPerSample,
        audioFormat: format.audioFormat,
        channels,
      };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}
