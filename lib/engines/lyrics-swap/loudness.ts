/**
 * Loudness and true peak after ITU-R BS.1770-4 (and EBU R 128 / Tech 3341 conventions).
 *
 * - K-weighting: a high shelf (+4 dB above ≈1.5 kHz) then a high-pass (≈38 Hz), two biquads. The
 *   coefficients for any sample rate come from the analog prototypes the 48 kHz table of BS.1770-4
 *   was derived from (shelf f0 = 1681.97 Hz, G = 4.0 dB, Q = 0.7072; high-pass f0 = 38.135 Hz,
 *   Q = 0.5003), as libebur128 computes them; at 48 kHz they reproduce the standard's coefficients.
 * - Integrated loudness: mean square per channel over 400 ms blocks with 75 % overlap, channel weights
 *   1 (L, R, C), L = −0.691 + 10·log10(Σ G·z); an absolute gate at −70 LUFS, then a relative gate 10 LU
 *   under the loudness of the blocks that passed the absolute gate.
 * - True peak (BS.1770-4 Annex 2): 4× oversampling with a windowed-sinc interpolator (16 taps per phase);
 *   the peak is the largest magnitude of the original and interpolated samples, in dBTP.
 */

/** A biquad's normalised coefficients (a0 = 1). */
export interface Biquad {
  readonly b0: number;
  readonly b1: number;
  readonly b2: number;
  readonly a1: number;
  readonly a2: number;
}

/**
 * The two K-weighting stages for a sample rate.
 * @returns `[shelf, highPass]`
 */
export function kWeighting(sampleRate: number): readonly [Biquad, Biquad] {
  let f0 = 1681.974450955533;
  const gainDb = 3.999843853973347;
  let q = 0.7071752369554196;
  let k = Math.tan((Math.PI * f0) / sampleRate);
  const vh = 10 ** (gainDb / 20);
  const vb = vh ** 0.4996667741545416;
  let a0 = 1 + k / q + k * k;
  const shelf: Biquad = {
    b0: (vh + (vb * k) / q + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / q + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q + k * k) / a0,
  };
  f0 = 38.13547087602444;
  q = 0.5003270373238773;
  k = Math.tan((Math.PI * f0) / sampleRate);
  a0 = 1 + k / q + k * k;
  const highPass: Biquad = {
    b0: 1,
    b1: -2,
    b2: 1,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q + k * k) / a0,
  };
  return [shelf, highPass];
}

/** A gain applied on the fly while measuring: `scale` times the per-sample `curve` (if any). */
export interface MeasuringGain {
  readonly scale: number;
  readonly curve?: Float32Array | undefined;
}

/** K-weighted squares of one channel, summed into 100 ms steps (the gating blocks are 4 steps). */
function stepEnergies(
  channel: Float32Array,
  sampleRate: number,
  step: number,
  gain?: MeasuringGain,
): Float64Array {
  const [s, h] = kWeighting(sampleRate);
  const steps = Math.floor(channel.length / step);
  const energies = new Float64Array(steps);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  let z1 = 0;
  let z2 = 0;
  for (let index = 0; index < steps; index += 1) {
    let sum = 0;
    const end = (index + 1) * step;
    const scale = gain?.scale ?? 1;
    const curve = gain?.curve;
    for (let n = index * step; n < end; n += 1) {
      const x = (channel[n] ?? 0) * scale * (curve === undefined ? 1 : (curve[n] ?? 1));
      const y = s.b0 * x + s.b1 * x1 + s.b2 * x2 - s.a1 * y1 - s.a2 * y2;
      x2 = x1;
      x1 = x;
      const z = y - 2 * y1 + y2 - h.a1 * z1 - h.a2 * z2;
      y2 = y1;
      y1 = y;
      z2 = z1;
      z1 = z;
      sum += z * z;
    }
    energies[index] = sum;
  }
  return energies;
}

function toLufs(meanSquare: number): number {
  return meanSquare > 0 ? -0.691 + 10 * Math.log10(meanSquare) : Number.NEGATIVE_INFINITY;
}

/**
 * Gated integrated loudness (BS.1770-4 §2, EBU R 128).
 * @param channels - one array per channel (L, R or mono), equal lengths, full scale = ±1; every
 *   channel is weighted 1 (no surround channels here)
 * @param gain - measure the channels as if multiplied by this gain (saves a scaled copy)
 * @returns LUFS; −Infinity for silence or audio shorter than one 400 ms block
 */
export function integratedLoudness(
  channels: readonly Float32Array[],
  sampleRate: number,
  gain?: MeasuringGain,
): number {
  const step = Math.round(0.1 * sampleRate);
  const perChannel = channels.map((channel) => stepEnergies(channel, sampleRate, step, gain));
  const steps = perChannel[0]?.length ?? 0;
  const blockSamples = 4 * step;
  const blocks: number[] = [];
  for (let start = 0; start + 4 <= steps; start += 1) {
    let sum = 0;
    for (const energies of perChannel) {
      sum +=
        ((energies[start] ?? 0) +
          (energies[start + 1] ?? 0) +
          (energies[start + 2] ?? 0) +
          (energies[start + 3] ?? 0)) /
        blockSamples;
    }
    blocks.push(sum);
  }
  const absolute = blocks.filter((z) => toLufs(z) > -70);
  if (absolute.length === 0) return Number.NEGATIVE_INFINITY;
  const relativeGate = toLufs(absolute.reduce((a, b) => a + b, 0) / absolute.length) - 10;
  const gated = absolute.filter((z) => toLufs(z) > relativeGate);
  return toLufs(gated.reduce((a, b) => a + b, 0) / gated.length);
}

/** Oversampling factor and taps per phase of the true-peak interpolator. */
export const TRUE_PEAK_OVERSAMPLING = 4;
const TAPS_PER_PHASE = 16;
const HALF_TAPS = TAPS_PER_PHASE / 2;

/**
 * Polyphase windowed-sinc (Kaiser, β = 8) taps, flattened: tap k of phase p (time n + p/4) weights
 * x[n + k − 7] at index (p − 1)·16 + k, for p = 1, 2, 3 (phase 0 is the sample itself).
 */
function interpolatorTaps(): Float64Array {
  const bessel = (x: number): number => {
    let sum = 1;
    let term = 1;
    for (let k = 1; k < 30; k += 1) {
      term *= (x / (2 * k)) ** 2;
      sum += term;
    }
    return sum;
  };
  const beta = 8;
  const taps = new Float64Array((TRUE_PEAK_OVERSAMPLING - 1) * TAPS_PER_PHASE);
  for (let p = 1; p < TRUE_PEAK_OVERSAMPLING; p += 1) {
    for (let k = 0; k < TAPS_PER_PHASE; k += 1) {
      const t = k - (HALF_TAPS - 1) - p / TRUE_PEAK_OVERSAMPLING;
      const sinc = Math.sin(Math.PI * t) / (Math.PI * t);
      const ratio = t / HALF_TAPS;
      const window = Math.abs(ratio) >= 1 ? 0 : bessel(beta * Math.sqrt(1 - ratio * ratio)) / bessel(beta);
      taps[(p - 1) * TAPS_PER_PHASE + k] = sinc * window;
    }
  }
  return taps;
}

const TAPS = interpolatorTaps();
/** Largest gain of any phase: |x| ≤ m around n means every interpolated |y| near n is ≤ m · this. */
const PHASE_GAIN = (() => {
  let gain = 1;
  for (let p = 0; p < TRUE_PEAK_OVERSAMPLING - 1; p += 1) {
    let sum = 0;
    for (let k = 0; k < TAPS_PER_PHASE; k += 1) sum += Math.abs(TAPS[p * TAPS_PER_PHASE + k] ?? 0);
    gain = Math.max(gain, sum);
  }
  return gain;
})();

/** Largest magnitude of the interpolated points between samples i and i + 1, reading `x` directly. */
function interpolatedPeakAt(x: ArrayLike<number>, i: number, scale: number): number {
  const base = i - (HALF_TAPS - 1);
  let peak = 0;
  for (let p = 0; p < TRUE_PEAK_OVERSAMPLING - 1; p += 1) {
    const t = p * TAPS_PER_PHASE;
    let acc = 0;
    for (let k = 0; k < TAPS_PER_PHASE; k += 1) acc += (TAPS[t + k] ?? 0) * (x[base + k] ?? 0);
    const magnitude = (acc < 0 ? -acc : acc) * scale;
    if (magnitude > peak) peak = magnitude;
  }
  return peak;
}

/**
 * A fast true-peak detector for a limiter: per sample n, the largest magnitude of x[n] and of the
 * 4×-interpolated values between n and n + 1, but interpolated only next to samples at or above
 * `threshold` (elsewhere the sample's own magnitude). Inter-sample peaks that rise from below `threshold`
 * are missed, which is why a limiter using it must verify its output with {@link truePeakDb}.
 */
export function truePeakDetector(channel: Float32Array, threshold: number): Float32Array {
  const n = channel.length;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 1) {
    const value = channel[i] ?? 0;
    out[i] = value < 0 ? -value : value;
  }
  for (let i = 0; i < n; i += 1) {
    if ((out[i] ?? 0) < threshold && (out[i + 1] ?? 0) < threshold) continue;
    const peak = interpolatedPeakAt(channel, i, 1);
    if (peak > (out[i] ?? 0)) out[i] = peak;
  }
  return out;
}

/**
 * True peak of one or more channels (exact for the 4× interpolator). The neighbourhood of the largest
 * sample is interpolated first; then every block of 16 samples is interpolated unless its largest nearby
 * sample times the interpolator's largest absolute gain cannot exceed the peak found so far.
 * @param channels - samples, e.g. Float32Array at full scale ±1, or Int16Array with `scale` 1/32768
 * @param scale - multiplies every sample (1 by default)
 * @returns dBTP (−Infinity for silence)
 */
export function truePeakDb(channels: readonly ArrayLike<number>[], scale = 1): number {
  const block = 16;
  let peak = 0;
  let peakChannel = 0;
  let peakIndex = 0;
  const maxima: Float32Array[] = [];
  channels.forEach((channel, c) => {
    const blockMax = new Float32Array(Math.ceil(channel.length / block));
    for (let i = 0; i < channel.length; i += 1) {
      const value = (channel[i] ?? 0) * scale;
      const magnitude = value < 0 ? -value : value;
      const b = (i / block) | 0;
      if (magnitude > (blockMax[b] ?? 0)) blockMax[b] = magnitude;
      if (magnitude > peak) {
        peak = magnitude;
        peakChannel = c;
        peakIndex = i;
      }
    }
    maxima.push(blockMax);
  });
  if (peak === 0) return Number.NEGATIVE_INFINITY;
  const loudest = channels[peakChannel];
  if (loudest !== undefined) {
    for (let i = Math.max(0, peakIndex - 1); i <= Math.min(loudest.length - 1, peakIndex); i += 1) {
      peak = Math.max(peak, interpolatedPeakAt(loudest, i, scale));
    }
  }
  maxima.forEach((blockMax, c) => {
    const channel = channels[c];
    if (channel === undefined) return;
    for (let b = 0; b < blockMax.length; b += 1) {
      const near = Math.max(blockMax[b - 1] ?? 0, blockMax[b] ?? 0, blockMax[b + 1] ?? 0);
      if (near * PHASE_GAIN <= peak) continue;
      const end = Math.min(channel.length, (b + 1) * block);
      for (let i = b * block; i < end; i += 1) {
        const value = interpolatedPeakAt(channel, i, scale);
        if (value > peak) peak = value;
      }
    }
  });
  return 20 * Math.log10(peak);
}
