/**
 * Mixes the vocal over the instrumental and normalises the peak: the vocal sits a fixed level above the
 * accompaniment (measured on active parts), short fades avoid clicks, and the sample peak is set just
 * under −1 dBFS before 16-bit quantisation (engine-design §5: true peak ≤ −1 dBTP).
 */
import type { StereoBuffer } from './instrumental';

/** Mixing settings. */
export interface MixSettings {
  /** How far the vocal sits above the instrumental, dB (active-part RMS). */
  readonly vocalAboveDb: number;
  /** Peak of the result, dBFS (≤ −1). */
  readonly peakDbfs: number;
  /** Fade-in and fade-out lengths, seconds. */
  readonly fadeInSeconds: number;
  readonly fadeOutSeconds: number;
}

/** Defaults: vocal 9 dB above the band, peak −1.05 dBFS (a margin for rounding), 10 ms in, 300 ms out. */
export const DEFAULT_MIX: MixSettings = {
  vocalAboveDb: 9,
  peakDbfs: -1.05,
  fadeInSeconds: 0.01,
  fadeOutSeconds: 0.3,
};

/**
 * RMS of the active part of a signal: mean power of the 50 ms blocks within 40 dB of the loudest block.
 * @param samples - one signal, or several whose average is measured (e.g. left and right)
 * @returns linear RMS (0 for silence)
 */
export function activeRms(samples: Float32Array | readonly Float32Array[], sampleRate: number): number {
  const signals = Array.isArray(samples) ? samples : [samples];
  const first = signals[0];
  const second = signals[1];
  if (first === undefined) return 0;
  const weight = 1 / signals.length;
  const block = Math.max(1, Math.round(0.05 * sampleRate));
  const powers: number[] = [];
  for (let start = 0; start < first.length; start += block) {
    let sum = 0;
    const end = Math.min(first.length, start + block);
    for (let n = start; n < end; n += 1) {
      const value = ((first[n] ?? 0) + (second === undefined ? 0 : (second[n] ?? 0))) * weight;
      sum += value * value;
    }
    powers.push(sum / (end - start));
  }
  const loudest = powers.reduce((a, b) => Math.max(a, b), 0);
  const active = powers.filter((power) => power > loudest * 1e-4 && power > 0);
  return active.length === 0 ? 0 : Math.sqrt(active.reduce((a, b) => a + b, 0) / active.length);
}

/** The gains {@link mixToPcm} applied, for rendering a stem at the same level. */
export interface MixGains {
  /** Gain of the instrumental relative to the vocal. */
  bandGain: number;
  /** Final scale from the mixed signal to 16-bit values. */
  scale: number;
}

/**
 * Mixes and quantises.
 * @param vocal - mono vocal, same length as the instrumental
 * @param channels - 2 = stereo (vocal centred), 1 = mono (instrumental folded down)
 * @param gains - when given, receives the gains used
 * @returns one Int16Array per channel, peak ≤ `settings.peakDbfs`
 */
export function mixToPcm(
  vocal: Float32Array,
  instrumental: StereoBuffer,
  channels: 1 | 2,
  sampleRate: number,
  settings: MixSettings = DEFAULT_MIX,
  gains?: MixGains,
): Int16Array[] {
  const length = vocal.length;
  const vocalRms = activeRms(vocal, sampleRate);
  const bandRms = activeRms([instrumental.left, instrumental.right], sampleRate);
  const bandGain =
    vocalRms > 0 && bandRms > 0 ? (vocalRms / bandRms) * 10 ** (-settings.vocalAboveDb / 20) : 1;
  const fadeIn = Math.max(1, Math.round(settings.fadeInSeconds * sampleRate));
  const fadeOut = Math.max(1, Math.round(settings.fadeOutSeconds * sampleRate));
  const mixed = Array.from({ length: channels }, () => new Float32Array(length));
  const [left, right] = mixed;
  let peak = 0;
  for (let n = 0; n < length; n += 1) {
    let gain = n < fadeIn ? n / fadeIn : 1;
    const remaining = length - 1 - n;
    if (remaining < fadeOut) gain *= remaining / fadeOut;
    const voice = vocal[n] ?? 0;
    const bandLeft = instrumental.left[n] ?? 0;
    const bandRight = instrumental.right[n] ?? 0;
    if (right === undefined) {
      const value = (voice + bandGain * 0.5 * (bandLeft + bandRight)) * gain;
      if (left !== undefined) left[n] = value;
      const magnitude = value < 0 ? -value : value;
      if (magnitude > peak) peak = magnitude;
    } else {
      const l = (voice + bandGain * bandLeft) * gain;
      const r = (voice + bandGain * bandRight) * gain;
      if (left !== undefined) left[n] = l;
      right[n] = r;
      const magnitudeLeft = l < 0 ? -l : l;
      const magnitudeRight = r < 0 ? -r : r;
      if (magnitudeLeft > peak) peak = magnitudeLeft;
      if (magnitudeRight > peak) peak = magnitudeRight;
    }
  }
  const scale = peak > 0 ? (10 ** (settings.peakDbfs / 20) * 32767) / peak : 0;
  if (gains !== undefined) {
    gains.bandGain = bandGain;
    gains.scale = scale;
  }
  return mixed.map((out) => {
    const pcm = new Int16Array(length);
    // Round half up via an offset integer truncation: Math.round into an Int16Array is ≈5× slower.
    for (let n = 0; n < length; n += 1) pcm[n] = (((out[n] ?? 0) * scale + 32768.5) | 0) - 32768;
    return pcm;
  });
}

/** Sample peak of 16-bit channels, dBFS (−Infinity for silence). */
export function peakDbfs(channels: readonly Int16Array[]): number {
  let peak = 0;
  for (const channel of channels) for (const value of channel) peak = Math.max(peak, Math.abs(value));
  return 20 * Math.log10(peak / 32768);
}
