/**
 * Aligned syllables → a performance plan: timed control segments (formant, voicing and noise targets)
 * and pitch targets for the formant synthesizer.
 *
 * Singing rules (engine-design §1.4–1.5): consonants start before the beat and never stretch, vowels
 * absorb the note length, an onset may steal at most half of the previous note, codas sit at the end of
 * the syllable's last note, consonant targets are pulled toward the neighbouring vowel, っ is a closure
 * at the end of the note, a repeated vowel without consonant gets a short voicing dip.
 */
import type { AlignedNote } from './alignment';
import {
  CONSONANTS,
  type ConsonantId,
  type ConsonantSpec,
  DIPHTHONGS,
  type FormantSet,
  isDiphthong,
  locusScale,
  type NucleusId,
  vowelFormants,
} from './phones';
import type { SingerPreset } from './singers';
import type { SungSyllable } from './syllable';

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

/** The pitch to sing from `start` until the next target starts. */
export interface PitchTarget {
  readonly start: number;
  /** Start of the note itself (vibrato timing), seconds. */
  readonly noteStart: number;
  /** Length of the note, seconds. */
  readonly noteDuration: number;
  readonly midi: number;
  /** First note after a silence: the pitch starts slightly low and rises (Horii). */
  readonly attack: boolean;
}

/** Everything the synthesizer needs. */
export interface PerformancePlan {
  readonly segments: readonly ControlSegment[];
  readonly pitches: readonly PitchTarget[];
  /** End of the last segment, seconds. */
  readonly end: number;
}

/** One line as the plan needs it: the syllables and their aligned notes. */
export interface PlannedLine {
  readonly syllables: readonly SungSyllable[];
  readonly notes: readonly AlignedNote[];
}

/** Longest onset before a beat, seconds. */
const MAX_ONSET_SECONDS = 0.25;
/** Share of the previous note an onset may take. */
const MAX_STEAL = 0.5;
/** Share of the last note a coda may take. */
const MAX_CODA_SHARE = 0.4;
/** Breath between lines sung back to back, seconds. */
const BREATH_SECONDS = 0.1;
/** Voicing dip that separates a repeated vowel, seconds. */
const DIP_SECONDS = 0.035;
/** A silence at least this long makes the next note an attack, seconds. */
const ATTACK_GAP_SECONDS = 0.15;

interface SyllableEvent {
  readonly syllable: SungSyllable;
  readonly notes: readonly AlignedNote[];
  readonly start: number;
  readonly end: number;
  readonly lineEnd: boolean;
}

function events(lines: readonly PlannedLine[]): SyllableEvent[] {
  const result: SyllableEvent[] = [];
  for (const line of lines) {
    line.syllables.forEach((syllable, index) => {
      const notes = line.notes.filter((note) => note.syllableIndex === index);
      const first = notes[0];
      const last = notes.at(-1);
      if (first === undefined || last === undefined) return;
      result.push({
        syllable,
        notes,
        start: first.start,
        end: last.start + last.duration,
        lineEnd: index === line.syllables.length - 1,
      });
    });
  }
  return result.sort((a, b) => a.start - b.start);
}

function scaleSet(formants: FormantSet, scale: number): FormantSet {
  const [f1, f2, f3, f4, f5] = formants.frequencies;
  return {
    frequencies: [f1 * scale, f2 * scale, f3 * scale, f4 * scale, f5 * scale],
    bandwidths: formants.bandwidths,
  };
}

/** Formants of a nucleus (first target of a diphthong), and the glide target if any. */
function nucleusFormants(
  nucleus: NucleusId,
  singer: SingerPreset,
): { start: FormantSet; glide?: FormantSet } {
  if (nucleus === 'nn') {
    const upper = vowelFormants('a', singer.voice);
    const [l1, l2, l3] = CONSONANTS.nn.locus;
    const k = locusScale(singer.voice) * singer.formantScale;
    return {
      start: {
        frequencies: [l1 * k, l2 * k, l3 * k, upper.frequencies[3], upper.frequencies[4]],
        bandwidths: [60, 300, 300, 300, 300],
      },
    };
  }
  if (isDiphthong(nucleus)) {
    const [from, to] = DIPHTHONGS[nucleus];
    return {
      start: scaleSet(vowelFormants(from, singer.voice), singer.formantScale),
      glide: scaleSet(vowelFormants(to, singer.voice), singer.formantScale),
    };
  }
  return { start: scaleSet(vowelFormants(nucleus, singer.voice), singer.formantScale) };
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
  const list = events(lines);
  // Onset placement first: it decides where each previous syllable must end.
  const onsetStarts = list.map((event, k) => {
    const syllable = event.syllable;
    const wanted = syllable.onset.reduce((sum, id) => sum + CONSONANTS[id].onsetSeconds, 0);
    const previous = list[k - 1];
    let room = event.start;
    if (previous !== undefined) {
      const lastNote = previous.notes.at(-1);
      const gap = Math.max(0, event.start - previous.end);
      room = gap + MAX_STEAL * (lastNote?.duration ?? 0);
    }
    const needsDip =
      previous !== undefined &&
      syllable.onset.length === 0 &&
      !syllable.legato &&
      previous.syllable.nucleus === syllable.nucleus &&
      previous.syllable.coda.length === 0 &&
      event.start - previous.end < 0.01;
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
    let end = Math.min(event.end, nextOnset);
    if (event.lineEnd && k + 1 < list.length) {
      end = Math.min(
        end,
        Math.max(event.start + 0.5 * (event.end - event.start), nextOnset - BREATH_SECONDS),
      );
    }
    const lastNote = event.notes.at(-1);
    const lastNoteStart = Math.max(event.start, lastNote?.start ?? event.start);
    const codaWanted = syllable.coda.map((id) =>
      id === 'cl' ? Math.min(0.12, 0.35 * (lastNote?.duration ?? 0)) : CONSONANTS[id].codaSeconds,
    );
    const codaTotal = codaWanted.reduce((sum, length) => sum + length, 0);
    const codaRoom = MAX_CODA_SHARE * Math.max(0, end - lastNoteStart);
    const codaScale = codaTotal > codaRoom ? codaRoom / codaTotal : 1;
    const codaLength = codaTotal * codaScale;
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
          codaWanted.map((length) => length * codaScale),
          codaVowel,
          'coda',
          singer,
        ),
      );
    }
    // Pitch: the syllable's first note is aimed at from the onset on, later notes from their start.
    event.notes.forEach((note, index) => {
      const start = index === 0 ? Math.min(onset.start, note.start) : note.start;
      pitches.push({
        start,
        noteStart: note.start,
        noteDuration: note.duration,
        midi: note.midi,
        attack: index === 0 && start - previousEnd >= ATTACK_GAP_SECONDS,
      });
    });
    previousEnd = end;
  });
  const end = segments.reduce((latest, segment) => Math.max(latest, segment.end), 0);
  return { segments, pitches, end };
}
