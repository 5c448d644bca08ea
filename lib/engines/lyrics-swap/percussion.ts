/**
 * Light percussion for the instrumental, synthesised (no samples): a soft kick (a sine falling from
 * ≈110 to 48 Hz), a brushed snare (band-passed noise with a short tone) and a closed hi-hat (high-passed
 * noise), on a pattern chosen by the meter. Noise comes from a seeded generator, so renders repeat.
 */

import type { StereoBuffer } from './instrumental';
import { createRandom, type Random } from './prng';

/** Where to play. */
export interface PercussionInput {
  /** Mix-timeline time of beat 0, seconds. */
  readonly startSeconds: number;
  readonly secondsPerBeat: number;
  /** Beats per bar (3 → waltz pattern, else a 2- or 4-beat pattern). */
  readonly beatsPerBar: number;
  /** Beats before the first downbeat. */
  readonly pickupBeats: number;
  /** Play hits in [0, endBeat). */
  readonly endBeat: number;
  readonly sampleRate: number;
  readonly seed: number;
}

type Voice = 'kick' | 'snare' | 'hat';

interface Hit {
  readonly voice: Voice;
  readonly beat: number;
  readonly level: number;
}

/** The pattern of one bar: [beat within the bar, voice, level]. */
function barPattern(beatsPerBar: number): readonly (readonly [number, Voice, number])[] {
  const hats = Array.from(
    { length: beatsPerBar * 2 },
    (_, k) => [k / 2, 'hat', k % 2 === 0 ? 0.55 : 0.35] as const,
  );
  if (beatsPerBar === 3) return [[0, 'kick', 1], [1, 'snare', 0.35], [2, 'snare', 0.35], ...hats];
  const backbeats = Array.from({ length: beatsPerBar }, (_, k) => k)
    .filter((k) => k % 2 === 1)
    .map((k) => [k, 'snare', 0.6] as const);
  const kicks = Array.from({ length: beatsPerBar }, (_, k) => k)
    .filter((k) => k % 2 === 0)
    .map((k) => [k, 'kick', k === 0 ? 1 : 0.8] as const);
  return [...kicks, ...backbeats, ...hats];
}

function addKick(out: StereoBuffer, at: number, level: number, sampleRate: number): void {
  const length = Math.round(0.35 * sampleRate);
  // Exponentials by recurrence: the sweep toward 48 Hz (τ 30 ms) and the amplitude decay (τ 110 ms).
  const sweepStep = Math.exp(-1 / (0.03 * sampleRate));
  const decayStep = Math.exp(-1 / (0.11 * sampleRate));
  const attack = 0.002 * sampleRate;
  let sweep = 1;
  let decay = 0.5 * level;
  let phase = 0;
  for (let i = 0; i < length; i += 1) {
    const n = at + i;
    if (n >= out.left.length) break;
    phase += (2 * Math.PI * (48 + 62 * sweep)) / sampleRate;
    sweep *= sweepStep;
    const value = decay * (i < attack ? i / attack : 1) * Math.sin(phase);
    decay *= decayStep;
    if (n < 0) continue;
    out.left[n] = (out.left[n] ?? 0) + value;
    out.right[n] = (out.right[n] ?? 0) + value;
  }
}

function addNoiseHit(
  out: StereoBuffer,
  at: number,
  level: number,
  sampleRate: number,
  random: Random,
  shape: {
    readonly decay: number;
    readonly highPassHz: number;
    readonly lowPassHz: number;
    readonly toneHz: number;
    readonly pan: number;
  },
): void {
  const length = Math.round(6 * shape.decay * sampleRate);
  const hp = Math.exp((-2 * Math.PI * shape.highPassHz) / sampleRate);
  const lp = 1 - Math.exp((-2 * Math.PI * shape.lowPassHz) / sampleRate);
  let hpIn = 0;
  let hpOut = 0;
  let lpOut = 0;
  const left = Math.cos((shape.pan + 1) * (Math.PI / 4));
  const right = Math.sin((shape.pan + 1) * (Math.PI / 4));
  // Decays and the tone (a sine recurrence) without per-sample exp/sin.
  const decayStep = Math.exp(-1 / (shape.decay * sampleRate));
  const toneDecayStep = Math.exp(-1 / (0.04 * sampleRate));
  const w = (2 * Math.PI * shape.toneHz) / sampleRate;
  const k = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = -Math.sin(w);
  let decay = level;
  let toneDecay = 0.5;
  for (let i = 0; i < length; i += 1) {
    const n = at + i;
    if (n >= out.left.length) break;
    const noise = 2 * random() - 1;
    hpOut = hp * (hpOut + noise - hpIn);
    hpIn = noise;
    lpOut += lp * (hpOut - lpOut);
    const sine = k * s1 - s2;
    s2 = s1;
    s1 = sine;
    const tone = shape.toneHz > 0 ? sine * toneDecay : 0;
    const value = decay * (lpOut + tone);
    decay *= decayStep;
    toneDecay *= toneDecayStep;
    if (n < 0) continue;
    out.left[n] = (out.left[n] ?? 0) + value * left;
    out.right[n] = (out.right[n] ?? 0) + value * right;
  }
}

/**
 * Adds the percussion to `out` (in place).
 */
export function addPercussion(out: StereoBuffer, input: PercussionInput): void {
  const random = createRandom(input.seed);
  const pattern = barPattern(input.beatsPerBar);
  const hits: Hit[] = [];
  // Bars are counted from the first downbeat; the pickup gets only hi-hats.
  const firstBar = -Math.ceil(input.pickupBeats / input.beatsPerBar);
  for (let bar = firstBar; ; bar += 1) {
    const barStart = input.pickupBeats + bar * input.beatsPerBar;
    if (barStart >= input.endBeat) break;
    for (const [offset, voice, level] of pattern) {
      const beat = barStart + offset;
      if (beat < 0 || beat >= input.endBeat) continue;
      if (barStart < input.pickupBeats && voice !== 'hat') continue;
      hits.push({ voice, beat, level });
    }
  }
  // The final downbeat: one kick under the last chord.
  hits.push({ voice: 'kick', beat: input.endBeat, level: 0.8 });
  hits.sort((a, b) => a.beat - b.beat || a.voice.localeCompare(b.voice));
  for (const hit of hits) {
    const at = Math.round((input.startSeconds + hit.beat * input.secondsPerBeat) * input.sampleRate);
    if (hit.voice === 'kick') addKick(out, at, hit.level, input.sampleRate);
    else if (hit.voice === 'snare')
      addNoiseHit(out, at, 0.22 * hit.level, input.sampleRate, random, {
        decay: 0.07,
        highPassHz: 900,
        lowPassHz: 5000,
        toneHz: 190,
        pan: -0.15,
      });
    else
      addNoiseHit(out, at, 0.12 * hit.level, input.sampleRate, random, {
        decay: 0.02,
        highPassHz: 7000,
        lowPassHz: 16_000,
        toneHz: 0,
        pan: 0.3,
      });
  }
}
