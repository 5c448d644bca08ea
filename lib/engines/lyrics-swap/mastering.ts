/**
 * Model v2's mix stage: vocal over the instrumental at a fixed loudness difference, the sum normalised to
 * an integrated loudness of −14 LUFS and held under −1 dBTP by a look-ahead true-peak limiter, then
 * quantised to 16 bits (engine-design §5; ITU-R BS.1770-4, EBU R 128).
 *
 * The limiter computes, per sample, the gain that keeps the 4×-oversampled peak under the ceiling (a fast
 * detector; the 16-bit result is then checked with the exact BS.1770 meter and trimmed if needed), takes
 * the minimum over a look-ahead window (so the gain is already down when the peak arrives), recovers
 * exponentially (release) and smooths the gain with a moving average as long as the look-ahead. Limiting
 * lowers the loudness slightly, so normalisation and limiting are repeated from the unlimited mix with a
 * corrected gain until the loudness is within 0.1 LU of the target.
 */
import type { StereoBuffer } from './instrumental';
import { integratedLoudness, truePeakDb, truePeakDetector } from './loudness';

/** Mastering settings. */
export interface MasterSettings {
  /** Integrated loudness of the result, LUFS. */
  readonly targetLufs: number;
  /** True-peak ceiling of the result, dBTP. */
  readonly ceilingDbtp: number;
  /** Margin under the ceiling the limiter aims for (interpolation and 16-bit rounding), dB. */
  readonly marginDb: number;
  /** Loudness of the vocal stem above the instrumental stem, LU. */
  readonly vocalOverInstrumentalLu: number;
  /** Limiter look-ahead and release, seconds. */
  readonly lookaheadSeconds: number;
  readonly releaseSeconds: number;
  /** Fade-in and fade-out of the whole mix, seconds. */
  readonly fadeInSeconds: number;
  readonly fadeOutSeconds: number;
}

/** −14 LUFS (streaming platforms' reference), ≤ −1 dBTP, vocal 6 LU over the band. */
export const DEFAULT_MASTER: MasterSettings = {
  targetLufs: -14,
  ceilingDbtp: -1,
  marginDb: 0.3,
  vocalOverInstrumentalLu: 6,
  lookaheadSeconds: 0.002,
  releaseSeconds: 0.08,
  fadeInSeconds: 0.01,
  fadeOutSeconds: 0.3,
};

/** What the mix stage measured. */
export interface MasterStats {
  /** Integrated loudness of the result (as measured before 16-bit rounding, which does not change it), LUFS. */
  readonly integratedLufs: number;
  /** True peak of the 16-bit result, dBTP. */
  readonly truePeakDbtp: number;
  /** Loudness of the vocal stem minus that of the instrumental stem, as mixed, LU. */
  readonly vocalOverInstrumentalLu: number;
  /** Largest gain reduction of the limiter, dB (0 when it did nothing). */
  readonly limiterReductionDb: number;
}

/** The mastered mix. */
export interface MasterResult {
  /** One 16-bit channel per output channel. */
  readonly channels: Int16Array[];
  /** The vocal alone with exactly the gain it has in the mix (mono), when asked for. */
  readonly vocal: Int16Array | undefined;
  readonly stats: MasterStats;
}

/** Corner of the master low-pass, Hz (capped at 0.4 × the sample rate). */
const LOW_PASS_HZ = 16_000;

/** Linear fade-in over the first `fadeIn` samples and fade-out over the last `fadeOut`, in place. */
function applyFades(signal: Float32Array, fadeIn: number, fadeOut: number): void {
  const length = signal.length;
  for (let n = 0; n < Math.min(fadeIn, length); n += 1) signal[n] = (signal[n] ?? 0) * (n / fadeIn);
  for (let n = Math.max(0, length - fadeOut); n < length; n += 1) {
    signal[n] = (signal[n] ?? 0) * (Math.max(0, length - 1 - n) / fadeOut);
  }
}

/**
 * Limiter gain curve: the gain that keeps `envelope · gain` (the true-peak envelope of the unscaled mix
 * times `preGain`) under `ceiling`, with look-ahead, release and smoothing; `undefined` if no reduction.
 */
function limiterGain(
  envelope: Float32Array,
  preGain: number,
  ceiling: number,
  settings: MasterSettings,
  sampleRate: number,
): Float32Array | undefined {
  const length = envelope.length;
  const required = new Float32Array(length);
  let needed = false;
  for (let n = 0; n < length; n += 1) {
    const peak = (envelope[n] ?? 0) * preGain;
    if (peak > ceiling) {
      required[n] = ceiling / peak;
      needed = true;
    } else {
      required[n] = 1;
    }
  }
  if (!needed) return undefined;
  const window = Math.max(1, Math.round(settings.lookaheadSeconds * sampleRate));
  // Sliding minimum over [n, n + window) with a monotonic deque.
  const minimum = new Float32Array(length);
  const deque = new Int32Array(length);
  let head = 0;
  let tail = 0;
  let next = 0;
  for (let n = 0; n < length; n += 1) {
    const limit = Math.min(length, n + window);
    while (next < limit) {
      const value = required[next] ?? 1;
      while (tail > head && (required[deque[tail - 1] ?? 0] ?? 1) >= value) tail -= 1;
      deque[tail] = next;
      tail += 1;
      next += 1;
    }
    while ((deque[head] ?? 0) < n) head += 1;
    minimum[n] = required[deque[head] ?? n] ?? 1;
  }
  // Release: recover exponentially toward the required gain when it rises.
  const recover = 1 - Math.exp(-1 / (settings.releaseSeconds * sampleRate));
  let gain = 1;
  for (let n = 0; n < length; n += 1) {
    const target = minimum[n] ?? 1;
    gain = target < gain ? target : gain + recover * (target - gain);
    minimum[n] = gain;
  }
  // Moving average over the look-ahead: every sample of the window that covers a peak is already low.
  const smoothed = new Float32Array(length);
  let sum = 0;
  for (let n = 0; n < length; n += 1) {
    sum += minimum[n] ?? 1;
    if (n >= window) sum -= minimum[n - window] ?? 1;
    smoothed[n] = sum / Math.min(n + 1, window);
  }
  return smoothed;
}

/** Second-order Butterworth low-pass (RBJ, Q = 1/√2), in place. */
export function lowPassInPlace(signal: Float32Array, cutoffHz: number, sampleRate: number): void {
  const w0 = (2 * Math.PI * cutoffHz) / sampleRate;
  const alpha = Math.sin(w0) / (2 * Math.SQRT1_2);
  const cos = Math.cos(w0);
  const a0 = 1 + alpha;
  const b0 = (1 - cos) / 2 / a0;
  const b1 = (1 - cos) / a0;
  const a1 = (-2 * cos) / a0;
  const a2 = (1 - alpha) / a0;
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let n = 0; n < signal.length; n += 1) {
    const x = signal[n] ?? 0;
    const y = b0 * x + b1 * x1 + b0 * x2 - a1 * y1 - a2 * y2;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    signal[n] = y;
  }
}

/** 16-bit quantisation of `channel · preGain · curve` (round half up, clamped). */
function quantiseScaled(channel: Float32Array, preGain: number, curve: Float32Array | undefined): Int16Array {
  const pcm = new Int16Array(channel.length);
  const scale = preGain * 32768;
  for (let n = 0; n < channel.length; n += 1) {
    const gain = curve === undefined ? scale : scale * (curve[n] ?? 1);
    // Offset integer truncation rounds half up (Math.round into an Int16Array is ≈5× slower).
    const value = (((channel[n] ?? 0) * gain + 32768.5) | 0) - 32768;
    pcm[n] = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
  }
  return pcm;
}

/**
 * Mixes, normalises, limits and quantises.
 * @param vocal - mono vocal, same length as the instrumental
 * @param channels - 2 = stereo (vocal centred), 1 = mono (instrumental folded down)
 * @param options.withVocalStem - also return the vocal alone at its mix gain (for `vocal.wav`)
 * @returns 16-bit channels at −14 LUFS (±0.1 LU unless the input is silent), true peak ≤ −1 dBTP
 */
export function masterMix(
  vocal: Float32Array,
  instrumental: StereoBuffer,
  channels: 1 | 2,
  sampleRate: number,
  options: { readonly withVocalStem?: boolean } = {},
  settings: MasterSettings = DEFAULT_MASTER,
): MasterResult {
  const length = vocal.length;
  const band: Float32Array[] = [];
  if (channels === 2) band.push(instrumental.left, instrumental.right);
  else {
    const mono = new Float32Array(length);
    for (let n = 0; n < length; n += 1)
      mono[n] = 0.5 * ((instrumental.left[n] ?? 0) + (instrumental.right[n] ?? 0));
    band.push(mono);
  }
  // Two identical channels measure 10·log10(2) ≈ 3.01 LU louder than one.
  const vocalLufs = integratedLoudness([vocal], sampleRate) + (channels === 2 ? 10 * Math.log10(2) : 0);
  const bandLufs = integratedLoudness(band, sampleRate);
  const balanced = Number.isFinite(vocalLufs) && Number.isFinite(bandLufs);
  const bandGain = balanced ? 10 ** ((vocalLufs - settings.vocalOverInstrumentalLu - bandLufs) / 20) : 1;
  const fadeIn = Math.max(1, Math.round(settings.fadeInSeconds * sampleRate));
  const fadeOut = Math.max(1, Math.round(settings.fadeOutSeconds * sampleRate));
  // Band-limit the mix (nothing of value lies above 16 kHz here), so inter-sample peaks stay modest.
  const cutoff = Math.min(LOW_PASS_HZ, 0.4 * sampleRate);
  const raw = band.map((part) => {
    const mixed = new Float32Array(length);
    for (let n = 0; n < length; n += 1) mixed[n] = (vocal[n] ?? 0) + bandGain * (part[n] ?? 0);
    lowPassInPlace(mixed, cutoff, sampleRate);
    applyFades(mixed, fadeIn, fadeOut);
    return mixed;
  });

  const ceiling = 10 ** ((settings.ceilingDbtp - settings.marginDb) / 20);
  let loudness = integratedLoudness(raw, sampleRate);
  let preGain = 1;
  if (Number.isFinite(loudness)) {
    preGain = 10 ** ((settings.targetLufs - loudness) / 20);
    loudness = settings.targetLufs;
  }
  // Rounding to 16 bits moves an interpolated value by at most half a step times the interpolator's gain
  // (< 2 steps).
  const roundingDb = 20 * Math.log10(1 + 2 / 32768 / ceiling);
  let peak = truePeakDb(raw, preGain);
  let limiter: Float32Array | undefined;
  if (peak > settings.ceilingDbtp - settings.marginDb) {
    // Limiting needed. The true-peak envelope scales with the gain: detect it once, interpolating around
    // every sample that a gain up to 3 dB above the first estimate would bring within 6 dB of the ceiling.
    const threshold = ceiling / (preGain * 10 ** (9 / 20));
    let envelope: Float32Array | undefined;
    for (const channel of raw) {
      const detected = truePeakDetector(channel, threshold);
      if (envelope === undefined) envelope = detected;
      else
        for (let n = 0; n < length; n += 1)
          if ((detected[n] ?? 0) > (envelope[n] ?? 0)) envelope[n] = detected[n] ?? 0;
    }
    for (let pass = 0; pass < 6 && envelope !== undefined; pass += 1) {
      limiter = limiterGain(envelope, preGain, ceiling, settings, sampleRate);
      loudness = integratedLoudness(raw, sampleRate, { scale: preGain, curve: limiter });
      if (!Number.isFinite(loudness) || Math.abs(loudness - settings.targetLufs) <= 0.05) break;
      preGain *= Math.min(10 ** ((settings.targetLufs - loudness) / 20), 10 ** (3 / 20));
    }
  }
  let pcm = raw.map((channel) => quantiseScaled(channel, preGain, limiter));
  if (limiter !== undefined) {
    // The limiter's detector is fast but not exact: verify the 16-bit result with the exact meter and
    // trim the whole mix if it is over the ceiling.
    peak = truePeakDb(pcm, 1 / 32768);
    if (peak > settings.ceilingDbtp) {
      const trim = 10 ** ((settings.ceilingDbtp - peak - 0.05) / 20);
      preGain *= trim;
      loudness += 20 * Math.log10(trim);
      pcm = raw.map((channel) => quantiseScaled(channel, preGain, limiter));
      peak = truePeakDb(pcm, 1 / 32768);
    }
  } else {
    // Unlimited: the exact peak of the gained mix, plus the most rounding can add.
    peak += roundingDb;
  }
  let vocalStem: Int16Array | undefined;
  if (options.withVocalStem === true) {
    const stem = Float32Array.from(vocal);
    lowPassInPlace(stem, cutoff, sampleRate);
    applyFades(stem, fadeIn, fadeOut);
    vocalStem = quantiseScaled(stem, preGain, limiter);
  }
  let reduction = 1;
  if (limiter !== undefined) for (const value of limiter) if (value < reduction) reduction = value;
  return {
    channels: pcm,
    vocal: vocalStem,
    stats: {
      integratedLufs: loudness,
      truePeakDbtp: peak,
      vocalOverInstrumentalLu: balanced ? settings.vocalOverInstrumentalLu : Number.NaN,
      limiterReductionDb: -20 * Math.log10(reduction),
    },
  };
}
