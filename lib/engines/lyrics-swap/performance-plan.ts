/**
 * Aligned syllables → a performance plan: timed control segments (formant, voicing and noise targets)
 * and pitch targets for the formant synthesizer.
 *
 * Singing rules (engine-design §1.4–1.5): consonants start before the beat and never stretch, vowels
 * absorb the note length, an onset may steal at most half of the previous note, codas sit at the end of
 * the syllable's last note, consonant targets are pulled toward the neighbouring vowel, っ is a closure
 * at the end of the note, a repeated vowel without consonant gets a short voicing dip.
 */
import {
  CONSONANTS,
  type ConsonantId,
  type ConsonantSpec,
  type FormantSet,
  locusScale,
  type NucleusId,
} from './phones';
import type { SingerPreset } from './singers';
import {
  codaTiming,
  hummedTarget,
  needsVowelDip,
  onsetRoom,
  type PitchTarget,
  type PlannedLine,
  pitchTargets,
  syllableEnd,
  syllableEvents,
  vowelTargets,
} from './syllable-timing';

export type { PitchTarget, PlannedLine } from './syllable-timing';

/** What the synthesizer aims for during a segment. Levels are linear, 1 = a full vowel. */
export interface VoiceTarget {
  readonly formants: FormantSet;
  /** Formants reached at the segment's end (diphthong glides); interpolated in log-Hz from `glideFrom`. */
  readonly glideTo?: FormantSet;
  /** Fraction of the segment after which the glide starts (0–1). */
  readonly glideFrom?: number;
  /** Glottal voicing. */
  readonly voicing: number;
  /** Aspiration noise through the vocal-tract resonators (h, voice onset time). */
  readonly aspiration: number;
  /** Frication or burst noise through its own band-pass. */
  readonly frication: number;
  /** Centre of the frication band, Hz. */
  readonly noiseHz: number;
  /** Width of the frication band, Hz. */
  readonly noiseBandwidthHz: number;
}

/** A target held from `start` to `end` (seconds, mix timeline). Segments are sorted and do not overlap. */
export interface ControlSegment {
  readonly start: number;
  readonly end: number;
  readonly target: VoiceTarget;
}

/** Everything the synthesizer needs. */
export interface PerformancePlan {
  readonly segments: readonly ControlSegment[];
  readonly pitches: readonly PitchTarget[];
  /** End of the last segment, seconds. */
  readonly end: number;
}

/** Longest onset before a beat, seconds. */
const MAX_ONSET_SECONDS = 0.25;
/** Voicing dip that separates a repeated vowel, seconds. */
const DIP_SECONDS = 0.035;

/** Formants of a nucleus (first target of a diphthong), and the glide target if any. */
function nucleusFormants(
  nucleus: NucleusId,
  singer: SingerPreset,
): { start: FormantSet; glide?: FormantSet } {
  return nucleus === 'nn' ? hummedTarget(CONSONANTS.nn.locus, 60, singer) : vowelTargets(nucleus, singer);
}

/** A consonant's formants: its locus pulled 40 % toward the vowel (log-Hz), upper formants from the vowel. */
function consonantFormants(spec: ConsonantSpec, vowel: FormantSet, singer: SingerPreset): FormantSet {
  const k = locusScale(singer.voice) * singer.formantScale;
  const blend = (locus: number, target: number): number =>
    Math.exp(0.6 * Math.log(locus * k) + 0.4 * Math.log(target));
  const [v1, v2, v3, v4, v5] = vowel.frequencies;
  const [, , , b4, b5] = vowel.bandwidths;
  return {
    frequencies: [blend(spec.locus[0], v1), blend(spec.locus[1], v2), blend(spec.locus[2], v3), v4, v5],
    bandwidths: [spec.bandwidths[0], spec.bandwidths[1], spec.bandwidths[2], b4, b5],
  };
}

const SILENT = { voicing: 0, aspiration: 0, frication: 0, noiseHz: 4000, noiseBandwidthHz: 3000 } as const;

/** Control segments of one consonant between `start` and `end`. */
function consonantSegments(
  id: ConsonantId,
  start: number,
  end: number,
  vowel: FormantSet,
  position: 'onset' | 'coda',
  singer: SingerPreset,
): ControlSegment[] {
  const spec = CONSONANTS[id];
  const formants = consonantFormants(spec, vowel, singer);
  const noise = spec.noise ?? { hz: 4000, bandwidthHz: 3000, level: 0 };
  const base = { ...SILENT, formants, noiseHz: noise.hz, noiseBandwidthHz: noise.bandwidthHz };
  const length = end - start;
  switch (spec.kind) {
    case 'stop': {
      const burst = Math.min(0.012, length * 0.3);
      const aspiration =
        position === 'onset' && !spec.voiced ? Math.min(spec.aspirationSeconds ?? 0, length * 0.35) : 0;
      const closureEnd = end - burst - aspiration;
      const segments: ControlSegment[] = [
        { start, end: closureEnd, target: { ...base, voicing: spec.voicing } },
        {
          start: closureEnd,
          end: closureEnd + burst,
          target: {
            ...base,
            voicing: spec.voicing,
            frication: noise.level * (position === 'coda' ? 0.6 : 1),
          },
        },
      ];
      if (aspiration > 0) {
        segments.push({
          start: closureEnd + burst,
          end,
          target: { ...base, formants: vowel, aspiration: 0.3 },
        });
      }
      return segments;
    }
    case 'affricate': {
      const closureEnd = start + length * 0.35;
      return [
        { start, end: closureEnd, target: { ...base, voicing: spec.voicing * 0.5 } },
        { start: closureEnd, end, target: { ...base, voicing: spec.voicing, frication: noise.level } },
      ];
    }
    case 'fricative':
      return [{ start, end, target: { ...base, voicing: spec.voicing, frication: noise.level } }];
    case 'aspirate':
      return [{ start, end, target: { ...base, formants: vowel, aspiration: 0.45 } }];
    case 'closure':
      return [{ start, end, target: base }];
    default:
      return [{ start, end, target: { ...base, voicing: spec.voicing } }];
  }
}

/** Lays consonants back to back from `start`, lengths proportional to `lengths`, scaled to fit `total`. */
function sequence(
  ids: readonly ConsonantId[],
  start: number,
  lengths: readonly number[],
  vowel: FormantSet,
  position: 'onset' | 'coda',
  singer: SingerPreset,
): ControlSegment[] {
  const segments: ControlSegment[] = [];
  let t = start;
  ids.forEach((id, index) => {
    const length = lengths[index] ?? 0;
    segments.push(...consonantSegments(id, t, t + length, vowel, position, singer));
    t += length;
  });
  return segments;
}

/**
 * Builds the performance plan of every line.
 * @param lines - syllables and their aligned notes, lines in time order
 * @returns segments and pitch targets, times in seconds on the mix timeline
 */
export function planPerformance(lines: readonly PlannedLine[], singer: SingerPreset): PerformancePlan {
  const list = syllableEvents(lines);
  // Onset placement first: it decides where each previous syllable must end.
  const onsetStarts = list.map((event, k) => {
    const syllable = event.syllable;
    const wanted = syllable.onset.reduce((sum, id) => sum + CONSONANTS[id].onsetSeconds, 0);
    const previous = list[k - 1];
    const room = onsetRoom(event, previous);
    const needsDip = needsVowelDip(event, previous);
    const length = needsDip ? DIP_SECONDS : Math.min(wanted, MAX_ONSET_SECONDS, room);
    return { start: event.start - length, scale: wanted > 0 ? length / wanted : 0, dip: needsDip };
  });

  const segments: ControlSegment[] = [];
  const pitches: PitchTarget[] = [];
  let previousEnd = Number.NEGATIVE_INFINITY;
  list.forEach((event, k) => {
    const { syllable } = event;
    const onset = onsetStarts[k] ?? { start: event.start, scale: 0, dip: false };
    const nextOnset = onsetStarts[k + 1]?.start ?? Number.POSITIVE_INFINITY;
    const vowel = nucleusFormants(syllable.nucleus, singer);
    // Onset consonants (or the dip of a repeated vowel) before the beat.
    if (onset.dip) {
      segments.push({
        start: onset.start,
        end: event.start,
        target: { ...SILENT, formants: vowel.start, voicing: 0.3 },
      });
    } else if (syllable.onset.length > 0) {
      const lengths = syllable.onset.map((id) => CONSONANTS[id].onsetSeconds * onset.scale);
      segments.push(...sequence(syllable.onset, onset.start, lengths, vowel.start, 'onset', singer));
    }
    // The vowel holds until the next onset; a line sung straight into the next one leaves a breath.
    const end = syllableEnd(event, nextOnset, k + 1 < list.length);
    const coda = codaTiming(event, end, (id) => CONSONANTS[id].codaSeconds);
    const codaLength = coda.length;
    const nucleusEnd = end - codaLength;
    const nucleusTarget: VoiceTarget = {
      ...SILENT,
      formants: vowel.start,
      ...(vowel.glide === undefined ? {} : { glideTo: vowel.glide, glideFrom: 0.45 }),
      voicing: syllable.nucleus === 'nn' ? CONSONANTS.nn.voicing : 1,
    };
    segments.push({ start: event.start, end: nucleusEnd, target: nucleusTarget });
    if (codaLength > 0) {
      const codaVowel = vowel.glide ?? vowel.start;
      segments.push(
        ...sequence(
          syllable.coda,
          nucleusEnd,
          coda.wanted.map((length) => length * coda.scale),
          codaVowel,
          'coda',
          singer,
        ),
      );
    }
    pitches.push(...pitchTargets(event, onset.start, previousEnd));
    previousEnd = end;
  });
  const end = segments.reduce((latest, segment) => Math.max(latest, segment.end), 0);
  return { segments, pitches, end };
}
