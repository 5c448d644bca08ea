/**
 * Timing rules both models' performance plans share (engine-design §1.4–1.5): syllables as timed events,
 * how much room an onset may take before the beat, the voicing dip of a repeated vowel, where a vowel
 * ends, how codas fit the last note, and the pitch targets of a syllable's notes. Also the singer's
 * vowel targets (formants scaled to the singer).
 */
import type { AlignedNote } from './alignment';
import {
  type ConsonantId,
  DIPHTHONGS,
  type FormantSet,
  isDiphthong,
  locusScale,
  type VowelId,
  vowelFormants,
} from './phones';
import type { SingerPreset } from './singers';
import type { SungSyllable } from './syllable';

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

/** One line as a plan needs it: the syllables and their aligned notes. */
export interface PlannedLine {
  readonly syllables: readonly SungSyllable[];
  readonly notes: readonly AlignedNote[];
}

/** A syllable with its notes and the time they span, seconds. */
export interface SyllableEvent {
  readonly syllable: SungSyllable;
  readonly notes: readonly AlignedNote[];
  readonly start: number;
  readonly end: number;
  readonly lineEnd: boolean;
}

/** Share of the previous note an onset may take. */
const MAX_STEAL = 0.5;
/** Share of the last note a coda may take. */
const MAX_CODA_SHARE = 0.4;
/** Breath between lines sung back to back, seconds. */
const BREATH_SECONDS = 0.1;
/** A silence at least this long makes the next note an attack, seconds. */
export const ATTACK_GAP_SECONDS = 0.15;

/** Every sung syllable of every line (syllables without notes are skipped), sorted by start. */
export function syllableEvents(lines: readonly PlannedLine[]): SyllableEvent[] {
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

/** The singer's formants of a vowel (the first target of a diphthong) and the glide target if any. */
export function vowelTargets(
  vowel: VowelId,
  singer: SingerPreset,
): { start: FormantSet; glide?: FormantSet } {
  if (isDiphthong(vowel)) {
    const [from, to] = DIPHTHONGS[vowel];
    return {
      start: scaleSet(vowelFormants(from, singer.voice), singer.formantScale),
      glide: scaleSet(vowelFormants(to, singer.voice), singer.formantScale),
    };
  }
  return { start: scaleSet(vowelFormants(vowel, singer.voice), singer.formantScale) };
}

/** The singer's formants of a held ん: F1–F3 at the nasal's locus (bandwidth `b1` on F1), F4, F5 of /a/. */
export function hummedTarget(
  locus: readonly [number, number, number],
  b1: number,
  singer: SingerPreset,
): { start: FormantSet } {
  const upper = vowelFormants('a', singer.voice);
  const [l1, l2, l3] = locus;
  const k = locusScale(singer.voice) * singer.formantScale;
  return {
    start: {
      frequencies: [l1 * k, l2 * k, l3 * k, upper.frequencies[3], upper.frequencies[4]],
      bandwidths: [b1, 300, 300, 300, 300],
    },
  };
}

/** How long an onset may be: the silence before the beat plus at most half of the previous note. */
export function onsetRoom(event: SyllableEvent, previous: SyllableEvent | undefined): number {
  if (previous === undefined) return event.start;
  const lastNote = previous.notes.at(-1);
  return Math.max(0, event.start - previous.end) + MAX_STEAL * (lastNote?.duration ?? 0);
}

/** A repeated vowel without consonant, sung right after the previous one, gets a short voicing dip. */
export function needsVowelDip(event: SyllableEvent, previous: SyllableEvent | undefined): boolean {
  const syllable = event.syllable;
  return (
    previous !== undefined &&
    syllable.onset.length === 0 &&
    !syllable.legato &&
    previous.syllable.nucleus === syllable.nucleus &&
    previous.syllable.coda.length === 0 &&
    event.start - previous.end < 0.01
  );
}

/**
 * Where the syllable's sound ends: the next onset; a line sung straight into the next one leaves a breath.
 * @param followed - another syllable comes after this one
 */
export function syllableEnd(event: SyllableEvent, nextOnset: number, followed: boolean): number {
  let end = Math.min(event.end, nextOnset);
  if (event.lineEnd && followed) {
    end = Math.min(end, Math.max(event.start + 0.5 * (event.end - event.start), nextOnset - BREATH_SECONDS));
  }
  return end;
}

/** Coda lengths: each consonant's `wanted` length times `scale`; `length` in all, seconds. */
export interface CodaTiming {
  readonly wanted: readonly number[];
  readonly scale: number;
  readonly length: number;
}

/**
 * Fits the syllable's coda at the end of its last note: っ takes a share of the note, other consonants
 * their `codaSeconds`, all squeezed into at most {@link MAX_CODA_SHARE} of the last note before `end`.
 */
export function codaTiming(
  event: SyllableEvent,
  end: number,
  codaSeconds: (id: ConsonantId) => number,
): CodaTiming {
  const lastNote = event.notes.at(-1);
  const lastNoteStart = Math.max(event.start, lastNote?.start ?? event.start);
  const wanted = event.syllable.coda.map((id) =>
    id === 'cl' ? Math.min(0.12, 0.35 * (lastNote?.duration ?? 0)) : codaSeconds(id),
  );
  const total = wanted.reduce((sum, length) => sum + length, 0);
  const room = MAX_CODA_SHARE * Math.max(0, end - lastNoteStart);
  const scale = total > room ? room / total : 1;
  return { wanted, scale, length: total * scale };
}

/** Pitch targets of a syllable's notes: the first is aimed at from the onset on, later ones from their start. */
export function pitchTargets(event: SyllableEvent, onsetStart: number, previousEnd: number): PitchTarget[] {
  return event.notes.map((note, index) => {
    const start = index === 0 ? Math.min(onsetStart, note.start) : note.start;
    return {
      start,
      noteStart: note.start,
      noteDuration: note.duration,
      midi: note.midi,
      attack: index === 0 && start - previousEnd >= ATTACK_GAP_SECONDS,
    };
  });
}
