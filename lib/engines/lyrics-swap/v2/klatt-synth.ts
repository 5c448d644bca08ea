/**
 * Model v2's singing synthesizer: a Klatt-style cascade/parallel formant synthesizer driven by an LF
 * glottal source (engine-design §0–1).
 *
 * - Source: band-limited LF flow-derivative wavetables (glottal-source.ts) read at the F0 phase, with
 *   per-period jitter and shimmer; aspiration noise gated by the glottal cycle (Klatt 1980: full in the
 *   open phase, reduced while closed) plus the singer's breathiness.
 * - Cascade: a nasal pole–zero pair (pole 270 Hz; zero = pole when not nasal, so the pair cancels;
 *   Klatt 1980) and five formant resonators, Klatt's digital resonator y = A·x + B·y₁ + C·y₂ with
 *   C = −e^{−2πBT}, B = 2e^{−πBT}cos 2πFT, A = 1 − B − C, and the anti-resonator its inverse.
 * - Parallel branch for frication and bursts: noise through constant-peak-gain band-passes at F2–F6
 *   (RBJ Audio EQ Cookbook) with the consonant's amplitudes A2–A6 and a bypass AB (Klatt 1980 Table III),
 *   alternating in sign as in Klatt's parallel synthesizer.
 * - Control: targets are sampled every 1 ms and smoothed by centred moving averages (formants in
 *   log-Hz over ≈40 ms, voicing ≈12 ms, noise ≈2–8 ms), so formants glide between sounds and amplitude
 *   steps never click; amplitudes are interpolated per sample.
 * - High notes: F1 ← max(F1, 1.05·F0 + 30 Hz) (Sundberg; engine-design §1.3).
 * - Ring: a high shelf above 2.5 kHz by the singer's `ringDb` stands in for the singer's formant
 *   (Sundberg 2001; RBJ Audio EQ Cookbook shelf).
 */
import type { Biquad } from '../loudness';
import { createRandom } from '../prng';
import { setResonator } from '../resonator';
import type { SingerPreset } from '../singers';
import { glottalTables, TABLE_SIZE } from './glottal-source';
import { pitchContour } from './pitch-contour';
import { type KlattPlan, NASAL_POLE_HZ } from './singing-plan';

/** Options of {@link renderKlattVocal}. */
export interface KlattRenderOptions {
  /**
   * `voice` (default) sings; `noise` replaces the glottal pulses with white noise of the same voicing
   * envelope (whispered singing), to measure the vocal-tract filter at any pitch (engine-design §5).
   */
  readonly excitation?: 'voice' | 'noise';
}

/** Control period, seconds. */
const FRAME_SECONDS = 0.001;
/** Smoothing windows (centred moving averages), seconds. */
const FORMANT_WINDOW = 0.024;
const BANDWIDTH_WINDOW = 0.024;
const NASAL_WINDOW = 0.016;
const VOICING_WINDOW = 0.012;
const ASPIRATION_WINDOW = 0.008;
const FRICATION_WINDOW = 0.002;
/** Level calibration: frication ≈ 10–15 dB under a vowel, aspiration breathy but soft. */
const GLOTTAL_GAIN = 0.05;
const WHISPER_GAIN = 0.35;
/** Aspiration (AH: h, voice-onset time, breaths) and the singer's breathiness, through the cascade. */
const ASPIRATION_GAIN = 0.0625;
const BREATHINESS_GAIN = 0.12;
const FRICATION_GAIN = 0.22;
/** Aspiration while the glottis is closed, relative to the open phase (Klatt: 50 % AM). */
const CLOSED_PHASE_NOISE = 0.5;
/** F6 of the parallel branch (Klatt 1980: 4900 Hz, B6 1000 Hz; scaled ×1.17 for women). */
const F6_HZ = 4900;
const B6_HZ = 1000;
const NASAL_BANDWIDTH = 100;
/** Corner of the singer's-ring shelf, Hz. */
const RING_HZ = 2500;

const TRACK_COUNT = 21;
// Track layout: 0–4 log F1–F5, 5–9 B1–B5, 10 log nasal zero, 11 AV, 12 AH, 13 AF, 14–19 parallel A2–A6, AB,
// 20 breathiness multiplier.
const LOG_F = 0;
const BW = 5;
const LOG_NZ = 10;
const AV = 11;
const AH = 12;
const AF = 13;
const PAR = 14;
const BREATH = 20;

/** Sums every `width` frames around each frame (centred moving average, edges clamped). */
function smooth(track: Float32Array, width: number): void {
  const half = Math.max(0, Math.floor(width / 2));
  if (half === 0) return;
  const n = track.length;
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i += 1) prefix[i + 1] = (prefix[i] ?? 0) + (track[i] ?? 0);
  for (let i = 0; i < n; i += 1) {
    const from = Math.max(0, i - half);
    const to = Math.min(n, i + half + 1);
    track[i] = ((prefix[to] ?? 0) - (prefix[from] ?? 0)) / (to - from);
  }
}

/**
 * Per-frame control tracks from the plan's segments (targets held, formants carried through silences).
 * @param frameSeconds - the exact control period (hop ÷ sample rate), so events never drift
 */
function buildTracks(plan: KlattPlan, frames: number, frameSeconds: number): Float32Array[] {
  const tracks = Array.from({ length: TRACK_COUNT }, () => new Float32Array(frames));
  const covered = new Uint8Array(frames);
  const logPole = Math.log(NASAL_POLE_HZ);
  for (const segment of plan.segments) {
    const first = Math.max(0, Math.ceil(segment.start / frameSeconds - 1e-9));
    const last = Math.min(frames - 1, Math.ceil(segment.end / frameSeconds - 1e-9) - 1);
    const { target } = segment;
    const length = segment.end - segment.start;
    for (let f = first; f <= last; f += 1) {
      covered[f] = 1;
      let mix = 0;
      if (target.glideTo !== undefined) {
        const from = target.glideFrom ?? 0;
        const progress = length > 0 ? (f * frameSeconds - segment.start) / length : 0;
        mix = Math.min(1, Math.max(0, (progress - from) / Math.max(1e-6, 1 - from)));
      }
      for (let i = 0; i < 5; i += 1) {
        const start = Math.log(target.formants.frequencies[i] ?? 1000);
        const goal = target.glideTo === undefined ? start : Math.log(target.glideTo.frequencies[i] ?? 1000);
        (tracks[LOG_F + i] as Float32Array)[f] = start + mix * (goal - start);
        (tracks[BW + i] as Float32Array)[f] = target.formants.bandwidths[i] ?? 100;
      }
      (tracks[LOG_NZ] as Float32Array)[f] =
        target.nasalZeroHz === undefined ? logPole : Math.log(target.nasalZeroHz);
      (tracks[AV] as Float32Array)[f] = target.voicing;
      (tracks[AH] as Float32Array)[f] = target.aspiration;
      (tracks[AF] as Float32Array)[f] = target.frication;
      for (let i = 0; i < 6; i += 1) (tracks[PAR + i] as Float32Array)[f] = target.parallel[i] ?? 0;
      (tracks[BREATH] as Float32Array)[f] = target.breathiness ?? 1;
    }
  }
  // Formants, bandwidths and the nasal zero hold their last value through silences (and take the first
  // value before the first sound), so smoothing never pulls them toward arbitrary defaults.
  for (let i = 0; i < 11; i += 1) {
    const track = tracks[i] as Float32Array;
    let last = Number.NaN;
    for (let f = 0; f < frames; f += 1) {
      if (covered[f] === 1) last = track[f] ?? last;
      else track[f] = last;
    }
    let nextValue = Number.NaN;
    for (let f = frames - 1; f >= 0; f -= 1) {
      if (Number.isNaN(track[f] ?? Number.NaN)) track[f] = nextValue;
      else nextValue = track[f] ?? nextValue;
    }
    if (Number.isNaN(track[0] ?? Number.NaN))
      track.fill(i < 5 ? Math.log(500 * (2 * i + 1)) : i === 10 ? logPole : 100);
  }
  const windowFrames = (seconds: number): number => Math.round(seconds / frameSeconds);
  for (let i = 0; i < 5; i += 1) {
    // Two passes: a triangular kernel, so formant glides start and end softly.
    smooth(tracks[LOG_F + i] as Float32Array, windowFrames(FORMANT_WINDOW));
    smooth(tracks[LOG_F + i] as Float32Array, windowFrames(FORMANT_WINDOW));
    smooth(tracks[BW + i] as Float32Array, windowFrames(BANDWIDTH_WINDOW));
  }
  smooth(tracks[LOG_NZ] as Float32Array, windowFrames(NASAL_WINDOW));
  smooth(tracks[AV] as Float32Array, windowFrames(VOICING_WINDOW));
  smooth(tracks[BREATH] as Float32Array, windowFrames(VOICING_WINDOW));
  smooth(tracks[AH] as Float32Array, windowFrames(ASPIRATION_WINDOW));
  smooth(tracks[AF] as Float32Array, windowFrames(FRICATION_WINDOW));
  for (let i = 0; i < 6; i += 1) smooth(tracks[PAR + i] as Float32Array, windowFrames(FRICATION_WINDOW));
  return tracks;
}

/** RBJ band-pass (0 dB peak gain) coefficients [b0, a1, a2] (b1 = 0, b2 = −b0) into `out` at `offset`. */
function bandPass(
  out: Float64Array,
  offset: number,
  frequency: number,
  bandwidth: number,
  sampleRate: number,
): void {
  const w0 = (2 * Math.PI * frequency) / sampleRate;
  const q = Math.max(0.5, frequency / bandwidth);
  const alpha = Math.sin(w0) / (2 * q);
  const a0 = 1 + alpha;
  out[offset] = alpha / a0;
  out[offset + 1] = (-2 * Math.cos(w0)) / a0;
  out[offset + 2] = (1 - alpha) / a0;
}

/** RBJ Audio EQ Cookbook high shelf, shelf slope S = 1. */
function highShelf(frequency: number, gainDb: number, sampleRate: number): Biquad {
  const a = 10 ** (gainDb / 40);
  const w0 = (2 * Math.PI * frequency) / sampleRate;
  const alpha = (Math.sin(w0) / 2) * Math.SQRT2;
  const cos = Math.cos(w0);
  const root = 2 * Math.sqrt(a) * alpha;
  const a0 = a + 1 - (a - 1) * cos + root;
  return {
    b0: (a * (a + 1 + (a - 1) * cos + root)) / a0,
    b1: (-2 * a * (a - 1 + (a + 1) * cos)) / a0,
    b2: (a * (a + 1 + (a - 1) * cos - root)) / a0,
    a1: (2 * (a - 1 - (a + 1) * cos)) / a0,
    a2: (a + 1 - (a - 1) * cos - root) / a0,
  };
}

function settle(value: number): number {
  return value > -1e-12 && value < 1e-12 ? 0 : value;
}

/**
 * Renders the vocal of a plan.
 * @param plan - segments and pitch targets (seconds)
 * @param sampleRate - output rate, Hz (44 100 or 24 000)
 * @param length - samples to render (the plan is cut or padded with silence)
 * @returns mono samples, roughly within ±1 (the mix stage sets the level)
 */
export function renderKlattVocal(
  plan: KlattPlan,
  singer: SingerPreset,
  sampleRate: number,
  length: number,
  options: KlattRenderOptions = {},
): Float32Array {
  const out = new Float32Array(length);
  const hop = Math.max(1, Math.round(FRAME_SECONDS * sampleRate));
  const frames = Math.ceil(length / hop) + 2;
  const tracks = buildTracks(plan, frames, hop / sampleRate);
  const random = createRandom(singer.seed);
  const contour = pitchContour(plan.pitches, singer.vibrato, hop / sampleRate, frames, random);
  const glottal = glottalTables(singer.glottalRd);
  const openPhase = glottal.shape.te;
  const whisper = options.excitation === 'noise';
  const female = singer.voice === 'soprano' || singer.voice === 'alto';
  const f6 = Math.min(F6_HZ * (female ? 1.17 : 1) * singer.formantScale, 0.45 * sampleRate);
  const nyquistGuard = 0.45 * sampleRate;
  const logPole = Math.log(NASAL_POLE_HZ);

  const cascade = new Float64Array(15);
  const nasal = new Float64Array(6);
  const parallel = new Float64Array(15);
  const parallelGains = new Float64Array(6);
  // Filter memories.
  let r1a = 0;
  let r1b = 0;
  let r2a = 0;
  let r2b = 0;
  let r3a = 0;
  let r3b = 0;
  let r4a = 0;
  let r4b = 0;
  let r5a = 0;
  let r5b = 0;
  let npA = 0;
  let npB = 0;
  let nzA = 0;
  let nzB = 0;
  const pX1 = new Float64Array(5);
  const pX2 = new Float64Array(5);
  const pY1 = new Float64Array(5);
  const pY2 = new Float64Array(5);
  let dcIn = 0;
  let dcOut = 0;
  // The singer's ring: an RBJ high shelf (S = 1) at RING_HZ.
  const shelf = highShelf(Math.min(RING_HZ, 0.4 * sampleRate), singer.ringDb, sampleRate);
  let sx1 = 0;
  let sx2 = 0;
  let sy1 = 0;
  let sy2 = 0;
  const dcAlpha = Math.exp((-2 * Math.PI * 40) / sampleRate);

  let phase = 0;
  let periodScale = 1;
  let pulseGain = 1;
  const trackAt = (track: number, frame: number): number => (tracks[track] as Float32Array)[frame] ?? 0;

  for (let frame = 0; frame * hop < length; frame += 1) {
    const from = frame * hop;
    const to = Math.min(length, from + hop);
    const f0Start = contour.hz[frame] ?? 220;
    const f0End = contour.hz[frame + 1] ?? f0Start;
    const gainStart = contour.gain[frame] ?? 1;
    const gainEnd = contour.gain[frame + 1] ?? gainStart;
    const avStart = trackAt(AV, frame) * gainStart;
    const avEnd = trackAt(AV, frame + 1) * gainEnd;
    const ahStart = trackAt(AH, frame);
    const ahEnd = trackAt(AH, frame + 1);
    const afStart = trackAt(AF, frame);
    const afEnd = trackAt(AF, frame + 1);

    // Cascade formants for this frame.
    const f0 = Math.max(f0Start, f0End);
    let floor = 0;
    for (let i = 0; i < 5; i += 1) {
      let frequency = Math.exp(trackAt(LOG_F + i, frame));
      if (i === 0) frequency = Math.max(frequency, 1.05 * f0 + 30);
      else frequency = Math.max(frequency, floor + 200);
      floor = frequency;
      setResonator(cascade, 3 * i, Math.min(frequency, nyquistGuard), trackAt(BW + i, frame), sampleRate);
    }
    // With the zero on the pole the pair is the identity, so it is bypassed and its memories cleared; it
    // restarts from rest, where equal pole and zero still cancel exactly, so coupling fades in smoothly.
    const logZero = trackAt(LOG_NZ, frame);
    const nasalOn =
      Math.abs(logZero - logPole) > 1e-4 || Math.abs(trackAt(LOG_NZ, frame + 1) - logPole) > 1e-4;
    if (nasalOn) {
      setResonator(nasal, 0, NASAL_POLE_HZ, NASAL_BANDWIDTH, sampleRate);
      setResonator(nasal, 3, Math.exp(logZero), NASAL_BANDWIDTH, sampleRate);
    } else {
      npA = 0;
      npB = 0;
      nzA = 0;
      nzB = 0;
    }
    const fricationOn = afStart > 1e-5 || afEnd > 1e-5;
    if (fricationOn) {
      for (let i = 0; i < 4; i += 1) {
        const frequency = Math.min(Math.exp(trackAt(LOG_F + 1 + i, frame)), nyquistGuard);
        bandPass(parallel, 3 * i, frequency, Math.max(150, trackAt(BW + 1 + i, frame)), sampleRate);
      }
      bandPass(parallel, 12, f6, B6_HZ, sampleRate);
      for (let i = 0; i < 6; i += 1) parallelGains[i] = trackAt(PAR + i, frame) * (i % 2 === 0 ? -1 : 1);
    }
    // Band-limited source: the largest table whose top harmonic stays under 0.45 × the sample rate.
    const maxHarmonic = nyquistGuard / f0;
    let tableIndex = 0;
    while (
      tableIndex + 1 < glottal.harmonics.length &&
      (glottal.harmonics[tableIndex + 1] ?? 0) <= maxHarmonic
    ) {
      tableIndex += 1;
    }
    const table = glottal.tables[tableIndex] ?? new Float32Array(TABLE_SIZE + 1);

    const nPa = nasal[0] ?? 0;
    const nPb = nasal[1] ?? 0;
    const nPc = nasal[2] ?? 0;
    const nZa = nasal[3] ?? 1;
    const nZb = nasal[4] ?? 0;
    const nZc = nasal[5] ?? 0;
    const jitter = singer.jitter;
    const shimmer = singer.shimmer;
    const breathiness = singer.breathiness * trackAt(BREATH, frame);
    const c1a = cascade[0] ?? 0;
    const c1b = cascade[1] ?? 0;
    const c1c = cascade[2] ?? 0;
    const c2a = cascade[3] ?? 0;
    const c2b = cascade[4] ?? 0;
    const c2c = cascade[5] ?? 0;
    const c3a = cascade[6] ?? 0;
    const c3b = cascade[7] ?? 0;
    const c3c = cascade[8] ?? 0;
    const c4a = cascade[9] ?? 0;
    const c4b = cascade[10] ?? 0;
    const c4c = cascade[11] ?? 0;
    const c5a = cascade[12] ?? 0;
    const c5b = cascade[13] ?? 0;
    const c5c = cascade[14] ?? 0;
    const span = to - from;
    for (let n = from; n < to; n += 1) {
      const w = (n - from) / span;
      const f = f0Start + w * (f0End - f0Start);
      const av = avStart + w * (avEnd - avStart);
      const ah = ahStart + w * (ahEnd - ahStart);
      phase += (f / sampleRate) * periodScale;
      if (phase >= 1) {
        phase -= 1;
        periodScale = 1 / (1 + jitter * (2 * random() - 1));
        pulseGain = 1 + shimmer * (2 * random() - 1);
      }
      const noise = 2 * random() - 1;
      let x: number;
      if (whisper) {
        x = noise * WHISPER_GAIN * av;
      } else {
        const position = phase * TABLE_SIZE;
        const i = position | 0;
        const frac = position - i;
        const a = table[i] ?? 0;
        const b = table[i + 1] ?? 0;
        x = (a + frac * (b - a)) * GLOTTAL_GAIN * av * pulseGain;
      }
      const gate = phase < openPhase ? 1 : CLOSED_PHASE_NOISE;
      x += noise * (ASPIRATION_GAIN * ah + BREATHINESS_GAIN * breathiness * av * gate);
      if (nasalOn) {
        const pole = nPa * x + nPb * npA + nPc * npB;
        npB = npA;
        npA = pole;
        // Anti-resonator: the inverse of a resonator, fed forward.
        x = (pole - nZb * nzA - nZc * nzB) / nZa;
        nzB = nzA;
        nzA = pole;
      }
      const y1 = c1a * x + c1b * r1a + c1c * r1b;
      r1b = r1a;
      r1a = y1;
      const y2 = c2a * y1 + c2b * r2a + c2c * r2b;
      r2b = r2a;
      r2a = y2;
      const y3 = c3a * y2 + c3b * r3a + c3c * r3b;
      r3b = r3a;
      r3a = y3;
      const y4 = c4a * y3 + c4b * r4a + c4c * r4b;
      r4b = r4a;
      r4a = y4;
      const y5 = c5a * y4 + c5b * r5a + c5c * r5b;
      r5b = r5a;
      r5a = y5;
      let y = y5;
      if (fricationOn) {
        const af = afStart + w * (afEnd - afStart);
        const source = (2 * random() - 1) * af * FRICATION_GAIN;
        let sum = source * (parallelGains[5] ?? 0);
        for (let k = 0; k < 5; k += 1) {
          const o = 3 * k;
          const b0 = parallel[o] ?? 0;
          const value =
            b0 * (source - (pX2[k] ?? 0)) -
            (parallel[o + 1] ?? 0) * (pY1[k] ?? 0) -
            (parallel[o + 2] ?? 0) * (pY2[k] ?? 0);
          pX2[k] = pX1[k] ?? 0;
          pX1[k] = source;
          pY2[k] = pY1[k] ?? 0;
          pY1[k] = value;
          sum += value * (parallelGains[k] ?? 0);
        }
        y += sum;
      }
      dcOut = y - dcIn + dcAlpha * dcOut;
      dcIn = y;
      const ringed = shelf.b0 * dcOut + shelf.b1 * sx1 + shelf.b2 * sx2 - shelf.a1 * sy1 - shelf.a2 * sy2;
      sx2 = sx1;
      sx1 = dcOut;
      sy2 = sy1;
      sy1 = ringed;
      out[n] = ringed;
    }
    // Decayed memories would otherwise become subnormal numbers, which are very slow.
    r1a = settle(r1a);
    r1b = settle(r1b);
    r2a = settle(r2a);
    r2b = settle(r2b);
    r3a = settle(r3a);
    r3b = settle(r3b);
    r4a = settle(r4a);
    r4b = settle(r4b);
    r5a = settle(r5a);
    r5b = settle(r5b);
    npA = settle(npA);
    npB = settle(npB);
    nzA = settle(nzA);
    nzB = settle(nzB);
    dcOut = settle(dcOut);
    sx1 = settle(sx1);
    sx2 = settle(sx2);
    sy1 = settle(sy1);
    sy2 = settle(sy2);
    if (!fricationOn) {
      pX1.fill(0);
      pX2.fill(0);
      pY1.fill(0);
      pY2.fill(0);
    }
  }
  return out;
}
