/**
 * Output format by predicted size, and WAV encoding (api-notes B14; engine-design §7).
 *
 * Lambda caps a synchronous response at 6 MB, base64 adds 4/3, so the data URL must stay within
 * ≈5.5 MB: 44.1 kHz stereo up to ≈23 s, 44.1 kHz mono up to ≈46 s, 24 kHz mono up to ≈85 s, else the
 * request is refused before rendering.
 */
import wavefile from 'wavefile';
import { ValidationError } from '../../errors';

/** A 16-bit PCM WAV format. */
export interface WavFormat {
  /** Hz. */
  readonly sampleRate: number;
  readonly channels: 1 | 2;
  readonly bitsPerSample: 16;
}

/** Candidate formats, best first. */
export const WAV_FORMATS: readonly WavFormat[] = [
  { sampleRate: 44_100, channels: 2, bitsPerSample: 16 },
  { sampleRate: 44_100, channels: 1, bitsPerSample: 16 },
  { sampleRate: 24_000, channels: 1, bitsPerSample: 16 },
];

/** Longest data URL the result may carry, characters (≈5.5 MB; leaves room for the JSON around it). */
export const MAX_DATA_URL_CHARS = 5_500_000;
/** Prefix of the result's data URL. */
export const DATA_URL_PREFIX = 'data:audio/wav;base64,';
/** Bytes of a canonical PCM WAV header (RIFF + fmt + data chunk headers). */
export const WAV_HEADER_BYTES = 44;

/** Frames of audio of `seconds` at `sampleRate` (the engine renders exactly this many). */
export function frameCount(seconds: number, sampleRate: number): number {
  return Math.round(seconds * sampleRate);
}

/** Size of the WAV file, bytes. */
export function wavFileBytes(format: WavFormat, frames: number): number {
  return WAV_HEADER_BYTES + frames * format.channels * (format.bitsPerSample / 8);
}

/** Length of the data URL of a file of `bytes`, characters. */
export function dataUrlChars(bytes: number): number {
  return DATA_URL_PREFIX.length + 4 * Math.ceil(bytes / 3);
}

/** The longest audio the smallest format can carry, seconds. */
export function longestAudioSeconds(): number {
  const smallest = WAV_FORMATS.at(-1) ?? { sampleRate: 24_000, channels: 1, bitsPerSample: 16 };
  const bytes = Math.floor(((MAX_DATA_URL_CHARS - DATA_URL_PREFIX.length) * 3) / 4) - WAV_HEADER_BYTES;
  return bytes / (smallest.sampleRate * smallest.channels * 2);
}

/**
 * The best format whose data URL fits.
 * @param seconds - length of the mix
 * @throws ValidationError `resultTooLarge` when even the smallest format does not fit, with the limit
 */
export function chooseWavFormat(seconds: number): WavFormat {
  for (const format of WAV_FORMATS) {
    const chars = dataUrlChars(wavFileBytes(format, frameCount(seconds, format.sampleRate)));
    if (chars <= MAX_DATA_URL_CHARS) return format;
  }
  const limit = longestAudioSeconds();
  throw new ValidationError(
    'resultTooLarge',
    `The mix would last ${seconds.toFixed(1)} s, but a result must fit the 6 MB response limit: at most ${limit.toFixed(1)} s of audio (24 kHz mono 16-bit WAV, ${MAX_DATA_URL_CHARS.toLocaleString('en-US')} base64 characters). Sing fewer lines.`,
    { details: { seconds, max_seconds: limit, max_data_url_chars: MAX_DATA_URL_CHARS } },
  );
}

/** The part of wavefile's `data` chunk object this module writes (documented as `wav.data.samples`). */
interface DataChunk {
  samples: Uint8Array;
  chunkSize: number;
}

function isDataChunk(value: unknown): value is DataChunk {
  return typeof value === 'object' && value !== null && 'samples' in value && 'chunkSize' in value;
}

/**
 * Encodes 16-bit PCM as a WAV file. `wavefile` writes the RIFF/fmt/data headers; the samples are
 * interleaved little-endian here, because wavefile's per-sample packer costs ≈150 ns a sample.
 * @param channels - one Int16Array per channel, equal lengths
 * @returns the file bytes ({@link WAV_HEADER_BYTES} + frames × channels × 2)
 */
export function encodeWav(channels: readonly Int16Array[], sampleRate: number): Uint8Array {
  const frames = channels[0]?.length ?? 0;
  const bytes = new Uint8Array(frames * channels.length * 2);
  const view = new DataView(bytes.buffer);
  channels.forEach((channel, c) => {
    const stride = channels.length * 2;
    for (let n = 0; n < frames; n += 1) view.setInt16(n * stride + c * 2, channel[n] ?? 0, true);
  });
  const wav = new wavefile.WaveFile();
  wav.fromScratch(channels.length, sampleRate, '16', []);
  const data: unknown = wav.data;
  if (!isDataChunk(data)) throw new Error('wavefile has no data chunk');
  data.samples = bytes;
  data.chunkSize = bytes.length;
  return wav.toBuffer();
}

/** The data URL of WAV bytes. */
export function wavDataUrl(bytes: Uint8Array): string {
  return `${DATA_URL_PREFIX}${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}
