/**
 * The Liljencrants–Fant (LF) glottal flow derivative, shaped by one parameter Rd, as band-limited
 * wavetables for model v2's source (engine-design §1.2).
 *
 * Sources: Fant, Liljencrants & Lin 1985 (STL-QPSR 26(4):1–13), the LF model:
 *   E(t) = E0·e^{αt}·sin(ωg·t) for 0 ≤ t ≤ te, ωg = π/tp;
 *   E(t) = −(Ee/(ε·ta))·(e^{−ε(t−te)} − e^{−ε(tc−te)}) for te < t ≤ tc, with ε·ta = 1 − e^{−ε(tc−te)},
 *   α chosen so that the flow returns to zero (∫E = 0 over the period).
 * Fant 1995 (STL-QPSR 36(2–3):119–156), the Rd parameterisation: Ra = (−1 + 4.8·Rd)/100,
 * Rk = (22.4 + 11.8·Rd)/100, Rd = (1/0.11)(0.5 + 1.2·Rk)(Rk/(4·Rg) + Ra), with tp = T0/(2·Rg),
 * te = tp·(1 + Rk), ta = Ra·T0.
 *
 * The flow derivative already contains the lip-radiation differentiation, so it drives the vocal-tract
 * filter directly. Tables are band-limited by additive resynthesis of the first H harmonics, one table
 * per octave of H, so high notes do not alias.
 */

/** LF timing for a period of 1 (T0 = tc = 1). */
export interface LfShape {
  readonly rd: number;
  /** Instant of the flow peak. */
  readonly tp: number;
  /** Instant of the main excitation (the derivative's negative peak, −Ee = −1). */
  readonly te: number;
  /** Effective duration of the return phase. */
  readonly ta: number;
  readonly alpha: number;
  readonly epsilon: number;
  /** Scale of the open-phase sinusoid for Ee = 1. */
  readonly e0: number;
}

/** Smallest and largest Rd the model is valid for (Fant 1995). */
export const RD_RANGE: readonly [number, number] = [0.3, 2.7];

function solveEpsilon(ta: number, returnLength: number): number {
  // Newton on f(ε) = ε·ta − 1 + e^{−ε·L}; start at 1/ta, where f > 0 and f is convex.
  let epsilon = 1 / ta;
  for (let i = 0; i < 50; i += 1) {
    const decay = Math.exp(-epsilon * returnLength);
    const f = epsilon * ta - 1 + decay;
    const slope = ta - returnLength * decay;
    const next = epsilon - f / slope;
    if (!Number.isFinite(next) || next <= 0) break;
    if (Math.abs(next - epsilon) < 1e-12 * epsilon) return next;
    epsilon = next;
  }
  return epsilon;
}

/** ∫E over one period for a trial α (E0 set so that E(te) = −1). */
function periodIntegral(alpha: number, tp: number, te: number, ta: number, epsilon: number): number {
  const omega = Math.PI / tp;
  const e0 = -1 / (Math.exp(alpha * te) * Math.sin(omega * te));
  const open =
    (e0 * (Math.exp(alpha * te) * (alpha * Math.sin(omega * te) - omega * Math.cos(omega * te)) + omega)) /
    (alpha * alpha + omega * omega);
  const length = 1 - te;
  const decay = Math.exp(-epsilon * length);
  const closing = -(1 / (epsilon * ta)) * ((1 - decay) / epsilon - length * decay);
  return open + closing;
}

/**
 * The LF timing and constants for a shape value.
 * @param rd - 0.3 (pressed) … 2.7 (breathy); clamped into {@link RD_RANGE}
 * @throws Error when α cannot be bracketed (does not happen inside the valid range)
 */
export function lfShape(rd: number): LfShape {
  const r = Math.min(RD_RANGE[1], Math.max(RD_RANGE[0], rd));
  const ra = (-1 + 4.8 * r) / 100;
  const rk = (22.4 + 11.8 * r) / 100;
  const rg = rk / (4 * ((0.11 * r) / (0.5 + 1.2 * rk) - ra));
  const tp = 1 / (2 * rg);
  const te = Math.min(0.98, tp * (1 + rk));
  const ta = ra;
  const epsilon = solveEpsilon(ta, 1 - te);
  // The integral falls as α grows (more of the open phase is squeezed into the negative lobe).
  let low = -20;
  let high = 200;
  if (periodIntegral(low, tp, te, ta, epsilon) < 0 || periodIntegral(high, tp, te, ta, epsilon) > 0) {
    throw new Error(`LF model: no zero-flow α for Rd ${r}`);
  }
  for (let i = 0; i < 200; i += 1) {
    const mid = (low + high) / 2;
    if (periodIntegral(mid, tp, te, ta, epsilon) > 0) low = mid;
    else high = mid;
  }
  const alpha = (low + high) / 2;
  const e0 = -1 / (Math.exp(alpha * te) * Math.sin((Math.PI / tp) * te));
  return { rd: r, tp, te, ta, alpha, epsilon, e0 };
}

/** The flow derivative at time t of a period of 1 (Ee = 1). */
export function lfDerivative(shape: LfShape, t: number): number {
  const { tp, te, ta, alpha, epsilon, e0 } = shape;
  if (t <= te) return e0 * Math.exp(alpha * t) * Math.sin((Math.PI / tp) * t);
  return -(1 / (epsilon * ta)) * (Math.exp(-epsilon * (t - te)) - Math.exp(-epsilon * (1 - te)));
}

/** Samples per wavetable period. */
export const TABLE_SIZE = 2048;

/** Band-limited wavetables of one shape: `tables[k]` holds harmonics 1…`harmonics[k]`. */
export interface GlottalTables {
  readonly shape: LfShape;
  readonly harmonics: readonly number[];
  /** Each TABLE_SIZE + 1 samples (the last repeats the first, for interpolation). */
  readonly tables: readonly Float32Array[];
}

const cache = new Map<number, GlottalTables>();

/**
 * Band-limited LF tables for an Rd (computed once per Rd and cached).
 * @returns tables with 4, 8, …, 512 harmonics; pick the largest whose top harmonic stays below Nyquist
 */
export function glottalTables(rd: number): GlottalTables {
  const key = Math.round(rd * 1000);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const shape = lfShape(rd);
  // Fourier series of the ideal pulse, by numerical integration over a fine grid.
  const grid = 8192;
  const pulse = new Float64Array(grid);
  for (let n = 0; n < grid; n += 1) pulse[n] = lfDerivative(shape, n / grid);
  const maxHarmonics = 512;
  const cosines = new Float64Array(maxHarmonics + 1);
  const sines = new Float64Array(maxHarmonics + 1);
  // Trigonometry by phasor rotation (double precision keeps the drift far below 1e-9 here).
  for (let h = 1; h <= maxHarmonics; h += 1) {
    let c = 0;
    let s = 0;
    const w = (2 * Math.PI * h) / grid;
    const stepCos = Math.cos(w);
    const stepSin = Math.sin(w);
    let re = 1;
    let im = 0;
    for (let n = 0; n < grid; n += 1) {
      const value = pulse[n] ?? 0;
      c += value * re;
      s += value * im;
      const nextRe = re * stepCos - im * stepSin;
      im = re * stepSin + im * stepCos;
      re = nextRe;
    }
    cosines[h] = (2 * c) / grid;
    sines[h] = (2 * s) / grid;
  }
  const harmonics: number[] = [];
  const tables: Float32Array[] = [];
  // Partial sums, built up octave by octave.
  const sum = new Float64Array(TABLE_SIZE);
  let done = 0;
  for (let top = 4; top <= maxHarmonics; top *= 2) {
    for (let h = done + 1; h <= top; h += 1) {
      const w = (2 * Math.PI * h) / TABLE_SIZE;
      const c = cosines[h] ?? 0;
      const s = sines[h] ?? 0;
      const stepCos = Math.cos(w);
      const stepSin = Math.sin(w);
      let re = 1;
      let im = 0;
      for (let n = 0; n < TABLE_SIZE; n += 1) {
        sum[n] = (sum[n] ?? 0) + c * re + s * im;
        const nextRe = re * stepCos - im * stepSin;
        im = re * stepSin + im * stepCos;
        re = nextRe;
      }
    }
    done = top;
    const table = new Float32Array(TABLE_SIZE + 1);
    for (let n = 0; n < TABLE_SIZE; n += 1) table[n] = sum[n] ?? 0;
    table[TABLE_SIZE] = table[0] ?? 0;
    harmonics.push(top);
    tables.push(table);
  }
  const result = { shape, harmonics, tables };
  cache.set(key, result);
  return result;
}
