/**
 * Independent measurement of rendered singing, for the engine tests and the benchmark (engine-design §5):
 * pitch with pitchy (McLeod pitch method, not the synthesizer's own F0) and formants by LPC.
 *
 * LPC method: autocorrelation LPC solved by the Levinson–Durbin recursion (Markel & Gray 1976, "Linear
 * Prediction of Speech"; Rabiner & Schafer 1978 §8.3), on a signal decimated to ≈11 kHz (5 formants
 * below 5.5 kHz, order 10 as Praat's "To Formant" defaults) with pre-emphasis 0.9 and a 30 ms Gaussian window;
 * formants are the angles of the predictor polynomial's complex roots (Durand–Kerner iteration) with
 * bandwidth −ln|z|·fs/π below 600 Hz. The median over the frames of a vowel is reported.
 */
import { PitchDetector } from 'pitchy';
import type { AlignedNote } from '../../../lib/engines/lyrics-swap/alignment';
import { lowPassInPlace } from '../../../lib/engines/lyrics-swap/mastering';

/** MIDI note → Hz (A4 = 440 Hz). */
export function midiToHz(midi: number): number {
  return 440 * 2 ** ((midi - 69) / 12);
}

/** Four cascaded RBJ low-pass biquads (−48 dB/octave above the cutoff). */
export function lowPass(input: Float32Array, cutoffHz: number, sampleRate: number): Float32Array {
  const signal = Float32Array.from(input);
  const cutoff = Math.min(cutoffHz, 0.45 * sampleRate);
  for (let stage = 0; stage < 4; stage += 1) lowPassInPlace(signal, cutoff, sampleRate);
  return signal;
}

/** The steady part of a note (engine-design §5): drop the first max(80 ms, 25 %) and the last 15 %. */
export function steadySpan(note: Pick<AlignedNote, 'start' | 'duration'>): [number, number] {
  return [note.start + Math.max(0.08, 0.25 * note.duration), note.start + 0.85 * note.duration];
}

/** A note's pitch as measured. */
export interface NotePitch {
  /** Median F0 error against the note, cents. */
  readonly cents: number;
  /** Share of the steady frames with a clear pitch within ±6 semitones of the note. */
  readonly voiced: number;
  readonly frames: number;
}

/** 23 ms at 44.1 kHz: ≥ 3 periods of the lowest note sung (130 Hz), short enough for 110 ms notes. */
const PITCH_WINDOW = 1024;
/** Length of the pitch analysis window, seconds (1024 samples at 44.1 kHz, 512 at 24 kHz). */
export const PITCH_WINDOW_SECONDS = 0.0232;
const detectors = new Map<number, PitchDetector<Float32Array>>();

/**
 * Median F0 (pitchy) over the steady part of a note, on a copy low-passed at ≈+6 semitones above the
 * note, so a strong second harmonic cannot cause an octave error; frames whose pitch is unclear
 * (clarity < 0.9) or more than 6 semitones off count as unvoiced.
 * @param within - when given, only frames inside these [from, to] spans (seconds) count, e.g. the time
 *   the note's vowel is sung (the next syllable's consonants start before its beat, inside this note)
 */
export function measureNotePitch(
  samples: Float32Array,
  sampleRate: number,
  note: Pick<AlignedNote, 'start' | 'duration' | 'midi'>,
  within?: readonly (readonly [number, number])[],
): NotePitch {
  const target = midiToHz(note.midi);
  const [from, to] = steadySpan(note);
  const window = sampleRate > 30_000 ? PITCH_WINDOW : PITCH_WINDOW / 2;
  let detector = detectors.get(window);
  if (detector === undefined) {
    detector = PitchDetector.forFloat32Array(window);
    detectors.set(window, detector);
  }
  const first = Math.max(0, Math.round(from * sampleRate) - window);
  const excerpt = lowPass(
    samples.subarray(first, Math.round(to * sampleRate) + window),
    target * 1.41,
    sampleRate,
  );
  const pitches: number[] = [];
  let frames = 0;
  for (let t = from; t <= to + 1e-9; t += 0.005) {
    const start = Math.round(t * sampleRate) - first - window / 2;
    if (start < 0 || start + window > excerpt.length) continue;
    if (within !== undefined && !within.some(([a, b]) => t >= a && t <= b)) continue;
    const [pitch, clarity] = detector.findPitch(excerpt.subarray(start, start + window), sampleRate);
    frames += 1;
    if (clarity >= 0.9 && Math.abs(1200 * Math.log2(pitch / target)) <= 600) pitches.push(pitch);
  }
  pitches.sort((a, b) => a - b);
  const median = pitches[Math.floor(pitches.length / 2)] ?? Number.NaN;
  return {
    cents: 1200 * Math.log2(median / target),
    voiced: frames === 0 ? 0 : pitches.length / frames,
    frames,
  };
}

/** Windowed-sinc low-pass FIR then keep every `factor`-th sample. */
function decimate(input: Float32Array, factor: number): Float32Array {
  if (factor <= 1) return input;
  const half = 8 * factor;
  const taps = new Float64Array(2 * half + 1);
  const cutoff = 0.45 / factor;
  let sum = 0;
  for (let k = -half; k <= half; k += 1) {
    const x = 2 * cutoff * k;
    const sinc = k === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const blackman = 0.42 + 0.5 * Math.cos((Math.PI * k) / half) + 0.08 * Math.cos((2 * Math.PI * k) / half);
    const value = 2 * cutoff * sinc * blackman;
    taps[k + half] = value;
    sum += value;
  }
  const out = new Float32Array(Math.floor(input.length / factor));
  for (let m = 0; m < out.length; m += 1) {
    const centre = m * factor;
    let acc = 0;
    for (let k = -half; k <= half; k += 1) acc += (taps[k + half] ?? 0) * (input[centre - k] ?? 0);
    out[m] = acc / sum;
  }
  return out;
}

/** Levinson–Durbin: predictor a[0..p] (a[0] = 1) from autocorrelation r[0..p]. */
function levinson(r: Float64Array, order: number): Float64Array {
  const a = new Float64Array(order + 1);
  a[0] = 1;
  let error = r[0] ?? 0;
  if (error <= 0) return a;
  for (let i = 1; i <= order; i += 1) {
    let acc = r[i] ?? 0;
    for (let j = 1; j < i; j += 1) acc += (a[j] ?? 0) * (r[i - j] ?? 0);
    const k = -acc / error;
    const previous = Float64Array.from(a);
    for (let j = 1; j < i; j += 1) a[j] = (previous[j] ?? 0) + k * (previous[i - j] ?? 0);
    a[i] = k;
    error *= 1 - k * k;
    if (error <= 0) break;
  }
  return a;
}

/** Complex roots of z^p + a1·z^(p−1) + … + ap by Durand–Kerner iteration. */
function polynomialRoots(a: Float64Array): { re: number; im: number }[] {
  const p = a.length - 1;
  const re = new Float64Array(p);
  const im = new Float64Array(p);
  for (let i = 0; i < p; i += 1) {
    // Distinct starting points on a circle of radius 0.9 (not symmetric about the real axis).
    const angle = (2 * Math.PI * i) / p + 0.4;
    re[i] = 0.9 * Math.cos(angle);
    im[i] = 0.9 * Math.sin(angle);
  }
  for (let iteration = 0; iteration < 500; iteration += 1) {
    let change = 0;
    for (let i = 0; i < p; i += 1) {
      const zr = re[i] ?? 0;
      const zi = im[i] ?? 0;
      // Horner: value of the monic polynomial at z.
      let vr = 1;
      let vi = 0;
      for (let k = 1; k <= p; k += 1) {
        const nr = vr * zr - vi * zi + (a[k] ?? 0);
        vi = vr * zi + vi * zr;
        vr = nr;
      }
      let dr = 1;
      let di = 0;
      for (let j = 0; j < p; j += 1) {
        if (j === i) continue;
        const xr = zr - (re[j] ?? 0);
        const xi = zi - (im[j] ?? 0);
        const nr = dr * xr - di * xi;
        di = dr * xi + di * xr;
        dr = nr;
      }
      const denominator = dr * dr + di * di;
      if (denominator === 0) continue;
      const qr = (vr * dr + vi * di) / denominator;
      const qi = (vi * dr - vr * di) / denominator;
      re[i] = zr - qr;
      im[i] = zi - qi;
      change = Math.max(change, Math.hypot(qr, qi));
    }
    if (change < 1e-12) break;
  }
  return Array.from({ length: p }, (_, i) => ({ re: re[i] ?? 0, im: im[i] ?? 0 }));
}

/** Formant frequencies (Hz, ascending) of one analysis frame. */
function frameFormants(frame: Float64Array, sampleRate: number, order: number): number[] {
  const r = new Float64Array(order + 1);
  for (let lag = 0; lag <= order; lag += 1) {
    let acc = 0;
    for (let n = lag; n < frame.length; n += 1) acc += (frame[n] ?? 0) * (frame[n - lag] ?? 0);
    r[lag] = acc;
  }
  if ((r[0] ?? 0) <= 1e-12) return [];
  // A tiny white-noise floor (lag-0 conditioning) keeps the recursion stable on very clean signals.
  r[0] = (r[0] ?? 0) * (1 + 1e-9);
  const a = levinson(r, order);
  return polynomialRoots(a)
    .filter((z) => z.im > 0)
    .map((z) => ({
      hz: (Math.atan2(z.im, z.re) * sampleRate) / (2 * Math.PI),
      bandwidth: (-Math.log(Math.hypot(z.re, z.im)) * sampleRate) / Math.PI,
    }))
    .filter((f) => f.hz > 90 && f.hz < sampleRate / 2 - 50 && f.bandwidth < 600)
    .map((f) => f.hz)
    .sort((x, y) => x - y);
}

/** Predictor order: two poles for each of five formants below ≈5.5 kHz (Praat's "To Formant" default). */
export const LPC_ORDER = 10;
/** First-order pre-emphasis x[n] − 0.9·x[n−1] (a common speech-analysis choice, +6 dB/octave tilt). */
export const PRE_EMPHASIS = 0.9;

/** Measured F1 and F2 of a stretch of signal. */
export interface MeasuredFormants {
  readonly f1: number;
  readonly f2: number;
  readonly frames: number;
}

/** Options of {@link measureFormants}. */
export interface LpcOptions {
  /** Predictor order (default 10: two poles per formant, five formants below 5.5 kHz). */
  readonly order?: number;
  /**
   * Pre-emphasis coefficient (default 0.9, compensating a voiced source's tilt); use 0 for a white
   * (noise) source, where pre-emphasis would bias F1 upward.
   */
  readonly preEmphasis?: number;
  /** Analysis window (Gaussian), seconds (default 0.03). */
  readonly windowSeconds?: number;
}

/**
 * Median F1 and F2 over [from, to] seconds by autocorrelation LPC.
 */
export function measureFormants(
  samples: Float32Array,
  sampleRate: number,
  from: number,
  to: number,
  options: LpcOptions = {},
): MeasuredFormants {
  const order = options.order ?? LPC_ORDER;
  const windowSeconds = options.windowSeconds ?? 0.03;
  const factor = Math.max(1, Math.round(sampleRate / 11_025));
  const rate = sampleRate / factor;
  const margin = 0.03;
  const first = Math.max(0, Math.round((from - margin) * sampleRate));
  const excerpt = decimate(samples.subarray(first, Math.round((to + margin) * sampleRate)), factor);
  const offset = first / sampleRate;
  const emphasis = options.preEmphasis ?? PRE_EMPHASIS;
  const emphasised = new Float64Array(excerpt.length);
  for (let n = 0; n < excerpt.length; n += 1)
    emphasised[n] = (excerpt[n] ?? 0) - emphasis * (excerpt[n - 1] ?? 0);
  const windowLength = Math.round(windowSeconds * rate);
  const window = new Float64Array(windowLength);
  for (let n = 0; n < windowLength; n += 1) {
    const x = (n - (windowLength - 1) / 2) / (0.4 * ((windowLength - 1) / 2));
    window[n] = Math.exp(-0.5 * x * x);
  }
  const f1s: number[] = [];
  const f2s: number[] = [];
  for (let t = from; t <= to + 1e-9; t += 0.005) {
    const start = Math.round((t - offset) * rate) - Math.floor(windowLength / 2);
    if (start < 0 || start + windowLength > emphasised.length) continue;
    const frame = new Float64Array(windowLength);
    for (let n = 0; n < windowLength; n += 1) frame[n] = (emphasised[start + n] ?? 0) * (window[n] ?? 0);
    const formants = frameFormants(frame, rate, order);
    const [f1, f2] = formants;
    if (f1 !== undefined && f2 !== undefined) {
      f1s.push(f1);
      f2s.push(f2);
    }
  }
  const median = (values: number[]): number => {
    values.sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] ?? Number.NaN;
  };
  return { f1: median(f1s), f2: median(f2s), frames: f1s.length };
}

/** Solves the symmetric Toeplitz system T x = y (T[i][j] = r[|i − j|]) by Gaussian elimination. */
function solveToeplitz(r: Float64Array, y: Float64Array): Float64Array {
  const n = y.length;
  const m = Array.from({ length: n }, (_, i) =>
    Float64Array.from({ length: n + 1 }, (_, j) => (j === n ? (y[i] ?? 0) : (r[Math.abs(i - j)] ?? 0))),
  );
  for (let c = 0; c < n; c += 1) {
    let pivot = c;
    for (let i = c + 1; i < n; i += 1) if (Math.abs(m[i]?.[c] ?? 0) > Math.abs(m[pivot]?.[c] ?? 0)) pivot = i;
    const rowC = m[pivot];
    const other = m[c];
    if (rowC === undefined || other === undefined) continue;
    m[pivot] = other;
    m[c] = rowC;
    const lead = rowC[c] ?? 1;
    for (let i = c + 1; i < n; i += 1) {
      const row = m[i];
      if (row === undefined) continue;
      const f = (row[c] ?? 0) / lead;
      for (let j = c; j <= n; j += 1) row[j] = (row[j] ?? 0) - f * (rowC[j] ?? 0);
    }
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i -= 1) {
    const row = m[i];
    if (row === undefined) continue;
    let acc = row[n] ?? 0;
    for (let j = i + 1; j < n; j += 1) acc -= (row[j] ?? 0) * (x[j] ?? 0);
    x[i] = acc / (row[i] ?? 1);
  }
  return x;
}

/**
 * Discrete all-pole (DAP) model of harmonic powers (El-Jaroudi & Makhoul 1991, IEEE Trans. SP 39(2):
 * 411–423): the all-pole model that minimises the Itakura–Saito distance at the harmonics only, by the
 * fixed-point iteration R·a = ĥ(a). Unlike autocorrelation LPC it is not pulled toward single harmonics
 * when F0 is high relative to F1.
 * @param omegas - harmonic frequencies, radians per sample (0, π)
 * @param powers - harmonic powers
 */
function discreteAllPole(omegas: readonly number[], powers: readonly number[], order: number): Float64Array {
  const n = omegas.length;
  const r = new Float64Array(order + 1);
  for (let i = 0; i <= order; i += 1) {
    let acc = 0;
    for (let m = 0; m < n; m += 1) acc += (powers[m] ?? 0) * Math.cos(i * (omegas[m] ?? 0));
    r[i] = acc / n;
  }
  r[0] = (r[0] ?? 0) * (1 + 1e-6);
  const a = levinson(r, order);
  for (let iteration = 0; iteration < 60; iteration += 1) {
    const h = new Float64Array(order + 1);
    for (let m = 0; m < n; m += 1) {
      const w = omegas[m] ?? 0;
      let re = 0;
      let im = 0;
      for (let k = 0; k <= order; k += 1) {
        re += (a[k] ?? 0) * Math.cos(k * w);
        im -= (a[k] ?? 0) * Math.sin(k * w);
      }
      const magnitude = re * re + im * im;
      // 1/A(ω) = conj(A)/|A|²; ĥ(−i) = mean of Re[e^{−jiω}/A(ω)].
      const invRe = re / magnitude;
      const invIm = -im / magnitude;
      for (let i = 0; i <= order; i += 1)
        h[i] = (h[i] ?? 0) + Math.cos(i * w) * invRe + Math.sin(i * w) * invIm;
    }
    for (let i = 0; i <= order; i += 1) h[i] = (h[i] ?? 0) / n;
    const x = solveToeplitz(r, h);
    const x0 = x[0] ?? 1;
    const next = Float64Array.from(x, (value) => value / x0);
    let change = 0;
    for (let k = 1; k <= order; k += 1) {
      const blended = 0.5 * (a[k] ?? 0) + 0.5 * (next[k] ?? 0);
      change = Math.max(change, Math.abs(blended - (a[k] ?? 0)));
      a[k] = blended;
    }
    if (change < 1e-7) break;
  }
  return a;
}

/** In-place iterative radix-2 FFT (length a power of two). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i += 1) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const tr = re[i] ?? 0;
      re[i] = re[j] ?? 0;
      re[j] = tr;
      const ti = im[i] ?? 0;
      im[i] = im[j] ?? 0;
      im[j] = ti;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let start = 0; start < n; start += size) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < size / 2; k += 1) {
        const a = start + k;
        const b = a + size / 2;
        const xr = (re[b] ?? 0) * cr - (im[b] ?? 0) * ci;
        const xi = (re[b] ?? 0) * ci + (im[b] ?? 0) * cr;
        re[b] = (re[a] ?? 0) - xr;
        im[b] = (im[a] ?? 0) - xi;
        re[a] = (re[a] ?? 0) + xr;
        im[a] = (im[a] ?? 0) + xi;
        const nr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = nr;
      }
    }
  }
}

/** Roots of a predictor → formant frequencies (Hz, ascending), bandwidth < 600 Hz, above 90 Hz. */
function predictorFormants(a: Float64Array, sampleRate: number): number[] {
  return polynomialRoots(a)
    .filter((z) => z.im > 0)
    .map((z) => ({
      hz: (Math.atan2(z.im, z.re) * sampleRate) / (2 * Math.PI),
      bandwidth: (-Math.log(Math.hypot(z.re, z.im)) * sampleRate) / Math.PI,
    }))
    .filter((f) => f.hz > 90 && f.hz < sampleRate / 2 - 50 && f.bandwidth < 600)
    .map((f) => f.hz)
    .sort((x, y) => x - y);
}

/**
 * Median F1 and F2 over [from, to] seconds of a voiced vowel by discrete all-pole modelling of its
 * harmonics (El-Jaroudi & Makhoul 1991), an LPC variant for voiced sounds whose harmonics are sparse
 * relative to the formant bandwidths (F0 ≳ 150 Hz): per 46 ms Hann frame, F0 is the strongest peak
 * within ±7 % of `nominalHz` (the note), harmonic powers are the peaks near k·F0 up to 5 kHz, and the
 * order-10 model (initialised by autocorrelation LPC + Levinson–Durbin) is fitted to them, frequencies
 * mapped onto an 11.025 kHz axis; formants are the roots of the predictor.
 * @param nominalHz - the note's frequency (from the score)
 */
export function measureFormantsDap(
  samples: Float32Array,
  sampleRate: number,
  from: number,
  to: number,
  nominalHz: number,
  order = LPC_ORDER,
): MeasuredFormants {
  const frameLength = sampleRate > 30_000 ? 2048 : 1024;
  const size = 8 * frameLength;
  const hann = Float64Array.from(
    { length: frameLength },
    (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / (frameLength - 1)),
  );
  const binHz = sampleRate / size;
  const f1s: number[] = [];
  const f2s: number[] = [];
  const axis = 11_025;
  for (let t = from; t <= to + 1e-9; t += 0.01) {
    const start = Math.round(t * sampleRate) - frameLength / 2;
    if (start < 0 || start + frameLength > samples.length) continue;
    const re = new Float64Array(size);
    const im = new Float64Array(size);
    for (let n = 0; n < frameLength; n += 1) re[n] = (samples[start + n] ?? 0) * (hann[n] ?? 0);
    fft(re, im);
    const power = (bin: number): number => (re[bin] ?? 0) ** 2 + (im[bin] ?? 0) ** 2;
    const peak = (lowHz: number, highHz: number): { hz: number; power: number } => {
      let best = Math.max(1, Math.round(lowHz / binHz));
      for (let bin = best; bin <= Math.round(highHz / binHz); bin += 1)
        if (power(bin) > power(best)) best = bin;
      return { hz: best * binHz, power: power(best) };
    };
    const f0 = peak(nominalHz * 0.93, nominalHz * 1.07).hz;
    const omegas: number[] = [];
    const powers: number[] = [];
    for (let k = 1; k * f0 < 5000; k += 1) {
      const harmonic = peak(k * f0 - 0.3 * f0, k * f0 + 0.3 * f0);
      omegas.push((2 * Math.PI * harmonic.hz) / axis);
      powers.push(harmonic.power);
    }
    if (omegas.length <= order) continue;
    const [f1, f2] = predictorFormants(discreteAllPole(omegas, powers, order), axis);
    if (f1 !== undefined && f2 !== undefined) {
      f1s.push(f1);
      f2s.push(f2);
    }
  }
  const median = (values: number[]): number => {
    values.sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] ?? Number.NaN;
  };
  return { f1: median(f1s), f2: median(f2s), frames: f1s.length };
}

/**
 * True peak by 8× band-limited interpolation (65-tap Blackman-windowed sinc per phase), evaluated
 * around every sample within 6 dB of the sample peak: an implementation independent of the engine's
 * BS.1770 meter, to cross-check it.
 * @returns dBTP
 */
export function truePeakOversampled(channels: readonly Float32Array[]): number {
  let samplePeak = 0;
  for (const channel of channels)
    for (const value of channel) samplePeak = Math.max(samplePeak, Math.abs(value));
  const half = 32;
  const factor = 8;
  let peak = samplePeak;
  for (const channel of channels) {
    for (let n = 0; n < channel.length; n += 1) {
      if (Math.abs(channel[n] ?? 0) < 0.5 * samplePeak) continue;
      for (const side of [-1, 0]) {
        for (let p = 1; p < factor; p += 1) {
          const position = n + side + p / factor;
          const base = Math.floor(position);
          let acc = 0;
          for (let k = -half + 1; k <= half; k += 1) {
            const t = position - (base + k);
            const sinc = Math.sin(Math.PI * t) / (Math.PI * t);
            const x = t / half;
            const blackman =
              Math.abs(x) >= 1 ? 0 : 0.42 + 0.5 * Math.cos(Math.PI * x) + 0.08 * Math.cos(2 * Math.PI * x);
            acc += (channel[base + k] ?? 0) * sinc * blackman;
          }
          peak = Math.max(peak, Math.abs(acc));
        }
      }
    }
  }
  return 20 * Math.log10(peak);
}
