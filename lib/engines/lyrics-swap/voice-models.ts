/**
 * The voice models a request can pick with `model_version`. Each model owns its whole audio path (how
 * English words become Japanese morae, the vocal synthesizer, the instrumental and the mix), so a
 * version, once published, keeps rendering the same bytes for the same input.
 *
 * - `v1`: rule-based formant singer (Rosenberg pulse, five-formant cascade), peak-normalised mix.
 * - `v2`: Klatt-style cascade/parallel singer with an LF source, nasal pole–zero pair, singing rules;
 *   instrumental with light percussion; mix at −14 LUFS, ≤ −1 dBTP (mastering.ts).
 */
import type { AlignedNote } from './alignment';
import type { MoraOptions } from './english-to-morae';
import { renderFormantVocal } from './formant-synth';
import { renderInstrumental } from './instrumental';
import { type MasterStats, masterMix } from './mastering';
import { type MixGains, mixToPcm } from './mix';
import { planPerformance } from './performance-plan';
import { hashSeed } from './prng';
import type { SingerLanguage, SingerPreset } from './singers';
import type { SongScore } from './songs';
import type { SungSyllable } from './syllable';
import { renderKlattVocal } from './v2/klatt-synth';
import { planKlattPerformance } from './v2/singing-plan';
import type { WavFormat } from './wav-format';

/** One sung line: its syllables and their aligned notes. */
export interface SungLine {
  readonly syllables: readonly SungSyllable[];
  readonly notes: readonly AlignedNote[];
}

/** What the instrumental and the mix need to know about the arrangement. */
export interface AccompanimentInput {
  readonly song: SongScore;
  /** Semitones added to the score. */
  readonly transpose: number;
  /** Mix-timeline time of the song's beat 0, seconds. */
  readonly startSeconds: number;
  /** Beat where the last sung phrase ends. */
  readonly endBeat: number;
  readonly tailSeconds: number;
  /** Lowest sung MIDI note. */
  readonly vocalLowMidi: number;
}

/** The mixed result of a model. */
export interface MixOutput {
  /** 16-bit PCM, one array per output channel. */
  readonly channels: Int16Array[];
  /** The vocal alone at its mix gain (mono 16-bit), when asked for. */
  readonly vocal: Int16Array | undefined;
  /** Loudness figures (model v2 and later). */
  readonly loudness: MasterStats | undefined;
}

/** A voice: one `model_version`. */
export interface VoiceModel {
  readonly version: string;
  /** One line for `refs` and the README. */
  readonly description: string;
  /** Singer languages the model can sing. */
  readonly languages: readonly SingerLanguage[];
  /** How English words become Japanese morae for Japanese singers. */
  readonly moraOptions: MoraOptions;
  /**
   * Renders the vocal stem (not normalised).
   * @param length - samples to produce at `sampleRate`
   */
  renderVocal(
    lines: readonly SungLine[],
    singer: SingerPreset,
    sampleRate: number,
    length: number,
  ): Float32Array;
  /**
   * Renders the instrumental and mixes the vocal over it into 16-bit PCM of `format`.
   * @param withVocalStem - also return the vocal alone at its mix gain
   */
  mix(
    vocal: Float32Array,
    accompaniment: AccompanimentInput,
    singer: SingerPreset,
    format: WavFormat,
    withVocalStem: boolean,
  ): MixOutput;
}

function quantiseStem(vocal: Float32Array, scale: number): Int16Array {
  const pcm = new Int16Array(vocal.length);
  for (let n = 0; n < vocal.length; n += 1) {
    const value = Math.round((vocal[n] ?? 0) * scale);
    pcm[n] = Math.max(-32768, Math.min(32767, value));
  }
  return pcm;
}

const v1: VoiceModel = {
  version: 'v1',
  description: 'rule-based formant singer (Rosenberg source, five-formant cascade), peak-normalised mix',
  languages: ['ja', 'en'],
  moraOptions: { longVowels: false },
  renderVocal: (lines, singer, sampleRate, length) =>
    renderFormantVocal(planPerformance(lines, singer), singer, sampleRate, length),
  mix(vocal, accompaniment, _singer, format, withVocalStem) {
    const instrumental = renderInstrumental({
      ...accompaniment,
      sampleRate: format.sampleRate,
      length: vocal.length,
    });
    const gains: MixGains = { bandGain: 1, scale: 0 };
    const channels = mixToPcm(vocal, instrumental, format.channels, format.sampleRate, undefined, gains);
    return {
      channels,
      vocal: withVocalStem ? quantiseStem(vocal, gains.scale) : undefined,
      loudness: undefined,
    };
  },
};

const v2: VoiceModel = {
  version: 'v2',
  description:
    'Klatt-style cascade/parallel formant singer (LF source, nasal pole–zero, singing rules), mix at −14 LUFS, ≤ −1 dBTP',
  languages: ['ja', 'en', 'ko'],
  moraOptions: { longVowels: true },
  renderVocal: (lines, singer, sampleRate, length) =>
    renderKlattVocal(planKlattPerformance(lines, singer), singer, sampleRate, length),
  mix(vocal, accompaniment, singer, format, withVocalStem) {
    const instrumental = renderInstrumental({
      ...accompaniment,
      sampleRate: format.sampleRate,
      length: vocal.length,
      percussionSeed: hashSeed(`${singer.id}/${accompaniment.song.id}`),
      halfRateTones: true,
    });
    const mastered = masterMix(vocal, instrumental, format.channels, format.sampleRate, { withVocalStem });
    return { channels: mastered.channels, vocal: mastered.vocal, loudness: mastered.stats };
  },
};

/** The voice models, oldest first; the newest a singer supports is the default. */
export const VOICE_MODELS: readonly VoiceModel[] = [v1, v2];

/** The models that can sing a singer's language, oldest first. */
export function modelsFor(singer: SingerPreset): VoiceModel[] {
  return VOICE_MODELS.filter((model) => model.languages.includes(singer.language));
}
