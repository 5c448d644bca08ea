/**
 * Rule-based formant singing synthesizer (model v1): a Rosenberg glottal pulse with jitter, shimmer and
 * breath noise drives a cascade of five resonators; noise through a band-pass adds frication and bursts.
 * Control values are smoothed every ≈1.5 ms, so parameter steps never click.
 *
 * Sources: Rosenberg 1971 (type B pulse, opening 40 %, closing 16 %); Klatt 1980 JASA 67:971 (digital
 * resonator, first-difference radiation, cascade, aspiration gated by the glottal cycle); F0 transitions
 * as a damped second-order response with overshoot (Saitou et al. 2007); vibrato and high-note F1 rule
 * (Sundberg; engine-design §1.2–1.3). Band-pass: RBJ Audio EQ Cookbook (constant 0 dB peak gain).
 */
import type { PerformancePlan, PitchTarget, VoiceTarget } from './performance-plan';
import { createRandom } from './prng';
import { setResonator } from './resonator';
import type { SingerPreset } from './singers';

/** Control-rate period, seconds. */
const CONTROL_SECONDS = 0.0015;
/** Rosenberg pulse: opening phase and closing phase as fractions of the period. */
const OPEN_PHASE = 0.4;
const CLOSE_PHASE = 0.16;
/** Smoothing time constants, seconds. */
const FORMANT_TAU = 0.012;
const VOICING_ATTACK_TAU = 0.006;
const VOICING_RELEASE_TAU = 0.012;
const NOISE_TAU = 0.0025;
/** F0 dynamics: natural frequency (Hz) and damping of the response to a note step. */
const PITCH_NATURAL_HZ = 6;
const PITCH_DAMPING = 0.6;
/** How far below the note an attack starts, cents. */
const ATTACK_SCOOP_CENTS = 30;
/** Slow random pitch drift: extent (cents) and how often a new drift value is drawn (s). */
const DRIFT_CENTS = 5;
const DRIFT_SECONDS = 0.12;
/** Level calibration of the sources (set so that frication sits ≈10–15 dB under a vowel). */
const GLOTTAL_GAIN = 0.12;
const ASPIRATION_GAIN = 0.5;
const FRICATION_GAIN = 2.2;

/** Snaps values that have decayed to nothing to exactly 0 (avoids subnormal arithmetic). */
function settle(value: number): number {
  return Math.abs(value) < 1e-9 ? 0 : value;
}

/** RBJ band-pass biquad, 0 dB peak gain. */
class BandPass {
  private b0 = 0;
  private a1 = 0;
  private a2 = 0;
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  set(frequency: number, bandwidth: number, sampleRate: number): void {
    const w0 = (2 * Math.PI * frequency) / sampleRate;
    const q = Math.max(0.3, frequency / bandwidth);
    const alpha = Math.sin(w0) / (2 * q);
    const a0 = 1 + alpha;
    this.b0 = alpha / a0;
    this.a1 = (-2 * Math.cos(w0)) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  reset(): void {
    this.x1 = 0;
    this.x2 = 0;
    this.y1 = 0;
    this.y2 = 0;
  }

  step(x: number): number {
    const y = this.b0 * (x - this.x2) - this.a1 * this.y1 - this.a2 * this.y2;
    this.x2 = this.x1;
    this.x1 = x;
    this.y2 = this.y1;
    this.y1 = y;
    return y;
  }
}

/** Glottal flow of the Rosenberg type-B pulse at phase 0–1 (0 = opening starts). */
function rosenbergFlow(phase: number): number {
  if (phase < OPEN_PHASE) return 0.5 * (1 - Math.cos((Math.PI * phase) / OPEN_PHASE));
  if (phase < OPEN_PHASE + CLOSE_PHASE) return Math.cos((Math.PI * (phase - OPEN_PHASE)) / (2 * CLOSE_PHASE));
  return 0;
}

function midiToHz(midi: number): number {
  return 440 * 2 ** ((midi - 69) / 12);
}

/** Finds the control target at time t; walks forward only (times increase). */
class SegmentCursor {
  private index = 0;

  constructor(private readonly plan: PerformancePlan) {}

  at(t: number): { target: VoiceTarget; progress: number } | undefined {
    const segments = this.plan.segments;
    let segment = segments[this.index];
    while (segment !== undefined && segment.end <= t) {
      this.index += 1;
      segment = segments[this.index];
    }
    if (segment === undefined || segment.start > t) return undefined;
    const length = segment.end - segment.start;
    return { target: segment.target, progress: length > 0 ? (t - segment.start) / length : 0 };
  }
}

/** Finds the pitch target at time t; walks forward only. */
class PitchCursor {
  private index = -1;

  constructor(private readonly pitches: readonly PitchTarget[]) {}

  /** The current target, and whether it changed at this call. */
  at(t: number): { target: PitchTarget | undefined; changed: boolean } {
    let changed = false;
    while (
      this.index + 1 < this.pitches.length &&
      (this.pitches[this.index + 1]?.start ?? Number.POSITIVE_INFINITY) <= t
    ) {
      this.index += 1;
      changed = true;
    }
    return { target: this.pitches[this.index], changed };
  }
}

/**
 * Renders the vocal of a performance plan.
 * @param plan - segments and pitch targets (seconds)
 * @param sampleRate - output rate, Hz (e.g. 44 100 or 24 000)
 * @param length - number of samples to render (the plan is cut or padded with silence)
 * @returns mono samples, roughly within ±1 (the mix normalises them)
 */
export function renderFormantVocal(
  plan: PerformancePlan,
  singer: SingerPreset,
  sampleRate: number,
  length: number,
): Float32Array {
  const out = new Float32Array(length);
  const random = createRandom(singer.seed);
  const hop = Math.max(1, Math.round(CONTROL_SECONDS * sampleRate));
  const coefficient = (tau: number): number => 1 - Math.exp(-hop / (tau * sampleRate));
  const formantAlpha = coefficient(FORMANT_TAU);
  const attackAlpha = coefficient(VOICING_ATTACK_TAU);
  const releaseAlpha = coefficient(VOICING_RELEASE_TAU);
  const noiseAlpha = coefficient(NOISE_TAU);
  const nyquistGuard = 0.45 * sampleRate;

  // A, B, C of the five cascade resonators, and their two-sample memories.
  const coefficients = new Float64Array(15);
  const memory = new Float64Array(10);
  const frication = new BandPass();
  const segments = new SegmentCursor(plan);
  const pitchCursor = new PitchCursor(plan.pitches);

  const logFormants = [Math.log(500), Math.log(1500), Math.log(2500), Math.log(3500), Math.log(4500)];
  const bandwidths = [80, 100, 150, 200, 250];
  let voicing = 0;
  let aspiration = 0;
  let fricationLevel = 0;
  let logNoiseHz = Math.log(4000);
  let noiseBandwidth = 3000;

  const firstPitch = plan.pitches[0];
  let cents = firstPitch === undefined ? 6000 : firstPitch.midi * 100;
  let centsVelocity = 0;
  let vibratoPhase = 0;
  let driftFrom = 0;
  let driftTo = 0;
  let driftClock = 0;

  let phase = 0;
  let periodScale = 1;
  let pulseGain = 1;
  let previousFlow = 0;
  let highPassState = 0;
  let highPassInput = 0;
  const highPassAlpha = Math.exp((-2 * Math.PI * 50) / sampleRate);

  let previousF0 = midiToHz(cents / 100);
  let previousVoicing = 0;
  let previousAspiration = 0;
  let previousFrication = 0;
  const dt = hop / sampleRate;
  const omega = 2 * Math.PI * PITCH_NATURAL_HZ;

  for (let frameStart = 0; frameStart < length; frameStart += hop) {
    const t = (frameStart + hop / 2) / sampleRate;
    const current = segments.at(t);
    const target = current?.target;

    // Formants and noise band: one-pole smoothing in log-Hz.
    if (target !== undefined) {
      const glide = target.glideTo;
      const from = target.glideFrom ?? 1;
      const mix =
        glide === undefined || current === undefined
          ? 0
          : Math.min(1, Math.max(0, (current.progress - from) / (1 - from)));
      for (let i = 0; i < 5; i += 1) {
        const start = Math.log(target.formants.frequencies[i] ?? 1000);
        const goal =
          glide === undefined ? start : start + mix * (Math.log(glide.frequencies[i] ?? 1000) - start);
        logFormants[i] = (logFormants[i] ?? goal) + formantAlpha * (goal - (logFormants[i] ?? goal));
        const bandwidth = target.formants.bandwidths[i] ?? 100;
        bandwidths[i] =
          (bandwidths[i] ?? bandwidth) + formantAlpha * (bandwidth - (bandwidths[i] ?? bandwidth));
      }
      logNoiseHz += noiseAlpha * (Math.log(Math.min(target.noiseHz, nyquistGuard)) - logNoiseHz);
      noiseBandwidth += noiseAlpha * (target.noiseBandwidthHz - noiseBandwidth);
    }
    const voicingGoal = target?.voicing ?? 0;
    voicing = settle(
      voicing + (voicingGoal > voicing ? attackAlpha : releaseAlpha) * (voicingGoal - voicing),
    );
    aspiration = settle(aspiration + noiseAlpha * ((target?.aspiration ?? 0) - aspiration));
    fricationLevel = settle(fricationLevel + noiseAlpha * ((target?.frication ?? 0) - fricationLevel));

    // Pitch: damped second-order approach to the note, plus vibrato and drift.
    const { target: pitch, changed } = pitchCursor.at(t);
    let vibrato = 0;
    if (pitch !== undefined) {
      const goal = pitch.midi * 100;
      if (changed && pitch.attack) {
        cents = goal - ATTACK_SCOOP_CENTS;
        centsVelocity = 0;
      }
      centsVelocity += dt * (omega * omega * (goal - cents) - 2 * PITCH_DAMPING * omega * centsVelocity);
      cents += dt * centsVelocity;
      const settings = singer.vibrato;
      if (pitch.noteDuration >= settings.minNoteSeconds) {
        const elapsed = t - pitch.noteStart - settings.delaySeconds;
        const depth = settings.extentCents * Math.min(1, Math.max(0, elapsed / settings.fadeInSeconds));
        vibrato = depth * Math.sin(vibratoPhase);
      }
    }
    vibratoPhase += 2 * Math.PI * singer.vibrato.rateHz * dt * (1 + 0.08 * (driftTo / DRIFT_CENTS));
    driftClock += dt;
    if (driftClock >= DRIFT_SECONDS) {
      driftClock -= DRIFT_SECONDS;
      driftFrom = driftTo;
      driftTo = DRIFT_CENTS * (2 * random() - 1);
    }
    const drift = driftFrom + (driftTo - driftFrom) * (driftClock / DRIFT_SECONDS);
    const f0 = midiToHz((cents + vibrato + drift) / 100);
    // Vibrato also moves loudness a little (≈1 dB, in phase).
    const vibratoGain =
      1 + (singer.vibrato.extentCents > 0 ? (0.06 * vibrato) / singer.vibrato.extentCents : 0);

    // Resonators: F1 rises to stay above F0 on high notes (sopranos tune F1 near F0).
    const f1 = Math.max(Math.exp(logFormants[0] ?? 6), 1.05 * f0 + 30);
    let floor = f1;
    for (let i = 0; i < 5; i += 1) {
      const frequency = i === 0 ? f1 : Math.max(Math.exp(logFormants[i] ?? 7), floor + 150);
      floor = frequency;
      setResonator(coefficients, 3 * i, Math.min(frequency, nyquistGuard), bandwidths[i] ?? 100, sampleRate);
    }
    frication.set(Math.exp(logNoiseHz), noiseBandwidth, sampleRate);

    const frameEnd = Math.min(length, frameStart + hop);
    const span = frameEnd - frameStart;
    const voicingTarget = voicing * vibratoGain;
    for (let n = frameStart; n < frameEnd; n += 1) {
      const w = (n - frameStart + 1) / span;
      const f = previousF0 + w * (f0 - previousF0);
      const av = previousVoicing + w * (voicingTarget - previousVoicing);
      const ah = previousAspiration + w * (aspiration - previousAspiration);
      const af = previousFrication + w * (fricationLevel - previousFrication);

      phase += (f / sampleRate) * periodScale;
      if (phase >= 1) {
        phase -= 1;
        periodScale = 1 / (1 + singer.jitter * (2 * random() - 1));
        pulseGain = 1 + singer.shimmer * (2 * random() - 1);
      }
      const flow = rosenbergFlow(phase);
      // Radiation: first difference of the flow, scaled by the period so the level does not grow with F0.
      const glottal = (flow - previousFlow) * (sampleRate / f) * GLOTTAL_GAIN * av * pulseGain;
      previousFlow = flow;
      const breath = singer.breathiness * av * (phase < OPEN_PHASE + CLOSE_PHASE ? 1 : 0.5);
      const noise = (2 * random() - 1) * ASPIRATION_GAIN * (ah + breath);
      let y = glottal + noise;
      for (let r = 0; r < 5; r += 1) {
        const k = 3 * r;
        const m = 2 * r;
        const value =
          (coefficients[k] ?? 0) * y +
          (coefficients[k + 1] ?? 0) * (memory[m] ?? 0) +
          (coefficients[k + 2] ?? 0) * (memory[m + 1] ?? 0);
        memory[m + 1] = memory[m] ?? 0;
        memory[m] = value;
        y = value;
      }
      if (af > 0) y += frication.step((2 * random() - 1) * af * FRICATION_GAIN);
      // DC blocker (first-order high-pass at ≈50 Hz).
      highPassState = y - highPassInput + highPassAlpha * highPassState;
      highPassInput = y;
      out[n] = highPassState;
    }
    // Decaying filter memories would otherwise reach subnormal numbers, which are very slow to compute.
    for (let i = 0; i < memory.length; i += 1) memory[i] = settle(memory[i] ?? 0);
    if (fricationLevel === 0 && previousFrication === 0) frication.reset();
    highPassState = settle(highPassState);
    previousF0 = f0;
    previousVoicing = voicingTarget;
    previousAspiration = aspiration;
    previousFrication = fricationLevel;
  }
  return out;
}
