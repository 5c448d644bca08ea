/**
 * Model v2's F0 contour at control rate: note steps shaped as a damped second-order response
 * (overshoot after the step, a small preparation dip before it), a rising scoop into notes after a
 * silence, vibrato that fades in after the onset of long notes, and slow random drift.
 *
 * Sources (engine-design §1.3): Saitou et al. 2005/2007 (F0 as a second-order system: overshoot,
 * preparation, fine fluctuation < 10 Hz); Horii (notes start with rising pitch); Timmers & Desain 2000
 * and J Voice 26(6):820.e19 (vibrato 5.5–6 Hz, pop ±20–40 cents on long notes, 1–2 dB AM in phase).
 * Engineering values: overshoot ≤ 10 % of the step and ≤ 25 cents, preparation 8 cents in the 50 ms
 * before a legato step, scoop 40 cents, drift ±5 cents.
 */
import type { PitchTarget } from '../performance-plan';
import type { Random } from '../prng';
import type { VibratoSettings } from '../singers';

/** Natural frequency of the F0 response to a note step, Hz. */
const NATURAL_HZ = 7.5;
/** Largest overshoot as a share of the step, and in cents. */
const MAX_OVERSHOOT_SHARE = 0.1;
const MAX_OVERSHOOT_CENTS = 25;
/** Preparation: opposite movement before a legato step, cents, and how long before the step, seconds. */
const PREPARATION_CENTS = 8;
const PREPARATION_SECONDS = 0.05;
/** A melisma note change is centred this much before the note boundary, seconds. */
const LEGATO_LEAD_SECONDS = 0.035;
/** Scoop into a note after a silence, cents below. */
const SCOOP_CENTS = 40;
/** Drift: extent (cents) and the interval between new random values (seconds), two layers. */
const DRIFT: readonly (readonly [number, number])[] = [
  [3.5, 0.13],
  [2.5, 0.41],
];
/** Vibrato amplitude modulation: relative gain change at full vibrato extent (≈ ±0.5 dB). */
const VIBRATO_AM = 0.06;

/** F0 and amplitude modulation per control frame. */
export interface PitchContour {
  /** F0 per frame, Hz. */
  readonly hz: Float32Array;
  /** Amplitude factor per frame (vibrato AM), around 1. */
  readonly gain: Float32Array;
}

/** Damping ratio giving the wanted overshoot ratio of a step response. */
function dampingFor(overshoot: number): number {
  const l = Math.log(Math.max(1e-4, overshoot));
  return -l / Math.sqrt(Math.PI * Math.PI + l * l);
}

interface Step {
  /** When the goal changes, seconds. */
  readonly at: number;
  readonly target: PitchTarget;
  readonly legato: boolean;
}

/**
 * Computes the contour.
 * @param pitches - pitch targets in time order
 * @param frameSeconds - control period, seconds
 * @param frames - number of frames
 * @param random - seeded random source (drift)
 */
export function pitchContour(
  pitches: readonly PitchTarget[],
  vibrato: VibratoSettings,
  frameSeconds: number,
  frames: number,
  random: Random,
): PitchContour {
  const hz = new Float32Array(frames);
  const gain = new Float32Array(frames).fill(1);
  const steps: Step[] = pitches.map((target, index) => {
    const previous = pitches[index - 1];
    const legato = !target.attack && target.start >= target.noteStart - 1e-9 && previous !== undefined;
    return { at: legato ? target.start - LEGATO_LEAD_SECONDS : target.start, target, legato };
  });
  const first = steps[0];
  if (first === undefined) return { hz: hz.fill(220), gain };

  const omega = 2 * Math.PI * NATURAL_HZ;
  let cents = first.target.midi * 100 - SCOOP_CENTS;
  let velocity = 0;
  let damping = 0.7;
  let index = -1;
  let vibratoPhase = 0;
  const drift = DRIFT.map(([extent, interval]) => ({
    extent,
    interval,
    from: 0,
    to: extent * (2 * random() - 1),
    clock: 0,
  }));

  for (let f = 0; f < frames; f += 1) {
    const t = f * frameSeconds;
    while (index + 1 < steps.length && (steps[index + 1]?.at ?? Number.POSITIVE_INFINITY) <= t) {
      index += 1;
      const step = steps[index];
      if (step === undefined) break;
      const goal = step.target.midi * 100;
      if (step.target.attack) {
        cents = goal - SCOOP_CENTS;
        velocity = 0;
        damping = 0.8;
      } else {
        const jump = Math.abs(goal - cents);
        const share =
          jump > 0 ? Math.min(MAX_OVERSHOOT_SHARE, MAX_OVERSHOOT_CENTS / jump) : MAX_OVERSHOOT_SHARE;
        damping = dampingFor(share);
      }
    }
    const current = steps[Math.max(0, index)] ?? first;
    let goal = current.target.midi * 100;
    const next = steps[index + 1];
    if (next?.legato === true && next.at - t <= PREPARATION_SECONDS && next.at > t) {
      goal -= Math.sign(next.target.midi * 100 - goal) * PREPARATION_CENTS;
    }
    // Semi-implicit Euler (stable: ω·dt ≈ 0.05).
    velocity += frameSeconds * (omega * omega * (goal - cents) - 2 * damping * omega * velocity);
    cents += frameSeconds * velocity;

    let vibratoCents = 0;
    const note = current.target;
    if (index >= 0 && note.noteDuration >= vibrato.minNoteSeconds) {
      const elapsed = t - note.noteStart - vibrato.delaySeconds;
      const ramp = Math.min(1, Math.max(0, elapsed / vibrato.fadeInSeconds));
      const depth = vibrato.extentCents * ramp * ramp * (3 - 2 * ramp);
      vibratoCents = depth * Math.sin(vibratoPhase);
      if (vibrato.extentCents > 0) gain[f] = 1 + (VIBRATO_AM * vibratoCents) / vibrato.extentCents;
    }
    let driftCents = 0;
    for (const layer of drift) {
      layer.clock += frameSeconds;
      if (layer.clock >= layer.interval) {
        layer.clock -= layer.interval;
        layer.from = layer.to;
        layer.to = layer.extent * (2 * random() - 1);
      }
      const x = layer.clock / layer.interval;
      driftCents += layer.from + (layer.to - layer.from) * x * x * (3 - 2 * x);
    }
    const rateDrift = 1 + 0.04 * (driftCents / 6);
    vibratoPhase += 2 * Math.PI * vibrato.rateHz * rateDrift * frameSeconds;
    hz[f] = 440 * 2 ** ((cents + vibratoCents + driftCents - 6900) / 1200);
  }
  return { hz, gain };
}
