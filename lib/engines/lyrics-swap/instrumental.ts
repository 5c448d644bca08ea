/**
 * The instrumental, generated from the song's chords at the song's tempo and transposition: a soft bass
 * on the chord roots, a sustained pad under the voice, plucked chord tones on the beats and, for model
 * v2, light percussion (engine-design §6: no audio assets, so it cannot drift from the melody).
 */
import { parseChord } from './chords';
import { addPercussion } from './percussion';
import { phraseBeats, type SongScore } from './songs';

/** What to accompany. */
export interface InstrumentalInput {
  readonly song: SongScore;
  /** Semitones added to every chord (the vocal's transposition). */
  readonly transpose: number;
  /** Mix-timeline time of the song's beat 0, seconds. */
  readonly startSeconds: number;
  /** Play the chords up to this beat (the end of the last sung phrase). */
  readonly endBeat: number;
  /** Ring-out after `endBeat`, seconds. */
  readonly tailSeconds: number;
  /** Lowest sung MIDI note: the pad stays below it where it can. */
  readonly vocalLowMidi: number;
  readonly sampleRate: number;
  /** Samples to render. */
  readonly length: number;
  /** Add light percussion (kick, brushed snare, hi-hat), with this noise seed; none when undefined. */
  readonly percussionSeed?: number | undefined;
  /**
   * Render the pitched parts at a reduced rate and interpolate linearly to the full rate (model v2):
   * plucks (partials below ≈4 kHz) at half the rate, pad and bass (below ≈1.2 kHz) at a quarter; the
   * interpolation images lie above 18 kHz and 9.8 kHz respectively, ≥ 40 dB under their partials.
   */
  readonly halfRateTones?: boolean | undefined;
}

/** Stereo instrumental, samples roughly within ±1 before mixing. */
export interface StereoBuffer {
  readonly left: Float32Array;
  readonly right: Float32Array;
}

interface Tone {
  readonly midi: number;
  readonly start: number;
  /** End of the sustain, seconds; the release follows. */
  readonly end: number;
  readonly attack: number;
  readonly release: number;
  /** Exponential decay time constant while held, seconds (Infinity = sustained). */
  readonly decay: number;
  /** Partial amplitudes (1st, 2nd, 3rd harmonic …). */
  readonly partials: readonly number[];
  readonly gain: number;
  /** Left/right gains. */
  readonly pan: readonly [number, number];
  /** Detune of the right channel against the left, cents. */
  readonly spreadCents: number;
  /** Pad and bass: all partials below ≈1.2 kHz (rendered at a quarter of the rate when allowed). */
  readonly low?: boolean;
}

function midiToHz(midi: number): number {
  return 440 * 2 ** ((midi - 69) / 12);
}

/** Adds one tone to the buffers; partials run as sine recurrences (no per-sample trigonometry). */
function addTone(tone: Tone, out: StereoBuffer, sampleRate: number): void {
  const first = Math.max(0, Math.floor(tone.start * sampleRate));
  const last = Math.min(out.left.length, Math.ceil((tone.end + tone.release) * sampleRate));
  if (last <= first) return;
  // Without detune one oscillator bank feeds both channels; with it, each channel has its own.
  const banks = tone.spreadCents === 0 ? [0] : [-tone.spreadCents / 2, tone.spreadCents / 2];
  // Oscillator state in typed arrays (recurrence factor 2·cos ω, the last two outputs, channel gains).
  const count = banks.length * tone.partials.length;
  const factor = new Float64Array(count);
  const y1 = new Float64Array(count);
  const y2 = new Float64Array(count);
  const toLeft = new Float64Array(count);
  const toRight = new Float64Array(count);
  let oscillators = 0;
  banks.forEach((cents, bank) => {
    const base = midiToHz(tone.midi) * 2 ** (cents / 1200);
    tone.partials.forEach((amplitude, index) => {
      const frequency = base * (index + 1);
      if (frequency >= 0.45 * sampleRate) return;
      const w = (2 * Math.PI * frequency) / sampleRate;
      factor[oscillators] = 2 * Math.cos(w);
      y1[oscillators] = Math.sin(-w);
      y2[oscillators] = Math.sin(-2 * w);
      toLeft[oscillators] = banks.length === 1 || bank === 0 ? amplitude * tone.pan[0] : 0;
      toRight[oscillators] = banks.length === 1 || bank === 1 ? amplitude * tone.pan[1] : 0;
      oscillators += 1;
    });
  });
  const attackSamples = Math.max(1, tone.attack * sampleRate);
  const decayFactor = Number.isFinite(tone.decay) ? Math.exp(-1 / (tone.decay * sampleRate)) : 1;
  const startSample = tone.start * sampleRate;
  const releaseStart = tone.end * sampleRate;
  const releaseSamples = Math.max(1, tone.release * sampleRate);
  const outLeft = out.left;
  const outRight = out.right;
  let decay = tone.gain;
  for (let n = first; n < last; n += 1) {
    const sinceStart = n - startSample;
    const attack = sinceStart >= attackSamples ? 1 : Math.max(0, sinceStart / attackSamples);
    const release = n <= releaseStart ? 1 : Math.max(0, 1 - (n - releaseStart) / releaseSamples);
    const envelope = attack * decay * release * release;
    decay *= decayFactor;
    let left = 0;
    let right = 0;
    for (let o = 0; o < oscillators; o += 1) {
      const y = (factor[o] ?? 0) * (y1[o] ?? 0) - (y2[o] ?? 0);
      y2[o] = y1[o] ?? 0;
      y1[o] = y;
      left += y * (toLeft[o] ?? 0);
      right += y * (toRight[o] ?? 0);
    }
    outLeft[n] = (outLeft[n] ?? 0) + left * envelope;
    outRight[n] = (outRight[n] ?? 0) + right * envelope;
  }
}

/** Adds `reduced` (at 1/`factor` of the rate) to `out`, linearly interpolated. */
function addInterpolated(out: StereoBuffer, reduced: StereoBuffer, factor: number): void {
  for (let n = 0; n < out.left.length; n += 1) {
    const i = Math.floor(n / factor);
    const frac = (n - i * factor) / factor;
    const l0 = reduced.left[i] ?? 0;
    const r0 = reduced.right[i] ?? 0;
    out.left[n] = (out.left[n] ?? 0) + l0 + frac * ((reduced.left[i + 1] ?? 0) - l0);
    out.right[n] = (out.right[n] ?? 0) + r0 + frac * ((reduced.right[i + 1] ?? 0) - r0);
  }
}

/** The MIDI note of pitch class `pc` nearest above or at `low`. */
function placeAbove(pc: number, low: number): number {
  return low + ((((pc - low) % 12) + 12) % 12);
}

/**
 * Renders the accompaniment.
 * @returns stereo samples of `input.length` frames
 */
export function renderInstrumental(input: InstrumentalInput): StereoBuffer {
  const { song, sampleRate } = input;
  const out: StereoBuffer = { left: new Float32Array(input.length), right: new Float32Array(input.length) };
  const secondsPerBeat = 60 / song.bpm;
  const timeOf = (beat: number): number => input.startSeconds + beat * secondsPerBeat;
  const bar = song.time[0];
  const padLow = Math.min(55, Math.max(45, input.vocalLowMidi - 14));
  const pluckLow = padLow + 12;
  const tones: Tone[] = [];
  const totalBeats = song.phrases.reduce((sum, phrase) => sum + phraseBeats(phrase), 0);
  const endBeat = Math.min(input.endBeat, totalBeats);

  let chordStart = 0;
  for (const [symbol, beats] of song.chords) {
    if (chordStart >= endBeat - 1e-9) break;
    const chord = parseChord(symbol);
    const chordEnd = Math.min(chordStart + beats, endBeat);
    const isLast = chordEnd >= endBeat - 1e-9;
    if (chord !== undefined) {
      const root = (chord.root + input.transpose + 120) % 12;
      const pitchClasses = chord.intervals.map((interval) => (root + interval) % 12);
      const ring = isLast ? input.tailSeconds : 0;
      // Pad: every chord tone once, between padLow and padLow + 12, cross-faded at chord changes.
      pitchClasses.forEach((pc, voice) => {
        const spread = pitchClasses.length > 1 ? voice / (pitchClasses.length - 1) - 0.5 : 0;
        tones.push({
          midi: placeAbove(pc, padLow),
          start: timeOf(chordStart),
          end: timeOf(chordEnd) + ring * 0.3,
          attack: 0.08,
          release: isLast ? ring * 0.7 + 0.05 : 0.12,
          decay: Number.POSITIVE_INFINITY,
          partials: [1, 0.3, 0.12],
          gain: 0.1,
          pan: [0.8 - 0.3 * spread, 0.8 + 0.3 * spread],
          spreadCents: 0,
          low: true,
        });
      });
      // Bass: the root on the chord change and every half bar.
      const bassMidi = placeAbove(root, 36);
      const step = bar % 2 === 0 ? bar / 2 : bar;
      for (let beat = chordStart; beat < chordEnd - 1e-9; beat += step) {
        const hitEnd = Math.min(beat + step, chordEnd);
        tones.push({
          midi: bassMidi,
          start: timeOf(beat),
          end: timeOf(hitEnd) - 0.03 + (isLast && hitEnd >= chordEnd - 1e-9 ? ring * 0.5 : 0),
          attack: 0.008,
          release: 0.06,
          decay: 0.9,
          partials: [1, 0.25, 0.05],
          gain: 0.45,
          pan: [0.9, 0.9],
          spreadCents: 0,
          low: true,
        });
      }
      // Plucked chord tones on every beat, cycling root – third – fifth – octave.
      const arpeggio = [
        ...pitchClasses.map((pc) => placeAbove(pc, pluckLow)),
        placeAbove(root, pluckLow) + 12,
      ];
      for (let beat = chordStart, k = 0; beat < chordEnd - 1e-9; beat += 1, k += 1) {
        const midi = arpeggio[k % arpeggio.length] ?? pluckLow;
        const left = k % 2 === 0 ? 0.9 : 0.5;
        tones.push({
          midi,
          start: timeOf(beat),
          end: timeOf(Math.min(beat + 1, chordEnd)) + (isLast ? ring * 0.5 : 0),
          attack: 0.003,
          release: 0.05,
          decay: 0.3,
          partials: [1, 0.45, 0.2],
          gain: 0.16,
          pan: [left, 1.4 - left],
          spreadCents: 0,
        });
      }
    }
    chordStart += beats;
  }
  if (input.halfRateTones === true) {
    for (const factor of [2, 4]) {
      const reduced: StereoBuffer = {
        left: new Float32Array(Math.ceil(input.length / factor) + 1),
        right: new Float32Array(Math.ceil(input.length / factor) + 1),
      };
      for (const tone of tones)
        if ((tone.low === true) === (factor === 4)) addTone(tone, reduced, sampleRate / factor);
      addInterpolated(out, reduced, factor);
    }
  } else {
    for (const tone of tones) addTone(tone, out, sampleRate);
  }
  if (input.percussionSeed !== undefined) {
    addPercussion(out, {
      startSeconds: input.startSeconds,
      secondsPerBeat,
      beatsPerBar: bar,
      pickupBeats: song.pickup,
      endBeat,
      sampleRate,
      seed: input.percussionSeed,
    });
  }
  return out;
}
