/**
 * Model v2's performance plan: aligned syllables → timed Klatt targets (cascade formants, voicing,
 * aspiration, frication with parallel amplitudes, nasal coupling) and pitch targets.
 *
 * Singing rules (engine-design §1.4–1.5): consonants start before the beat and keep their length (only
 * squeezed when the previous note is short: an onset steals at most half of it); vowels absorb the note
 * length; codas sit at the end of the syllable's last note; consonant loci are pulled toward the
 * neighbouring vowel (Klatt's loci are for front vowels); stops are closure → burst → aspiration (voice
 * onset time per language); Korean lenis stops are voiceless after a pause and voiced between voiced
 * sounds, Korean coda stops are unreleased; a repeated vowel without consonant gets a short voicing
 * dip; a phrase ends with a soft decay; a breath is drawn in rests of a third of a second or more.
 */
import { type ConsonantId, type FormantSet, locusScale, type NucleusId } from '../phones';
import type { SingerLanguage, SingerPreset } from '../singers';
import {
  ATTACK_GAP_SECONDS,
  codaTiming,
  hummedTarget,
  needsVowelDip,
  onsetRoom,
  type PitchTarget,
  type PlannedLine,
  pitchTargets,
  type SyllableEvent,
  syllableEnd,
  syllableEvents,
  vowelTargets,
} from '../syllable-timing';
import {
  aspirationSeconds,
  isKoreanLenis,
  KLATT_CONSONANTS,
  type Manner,
  NASAL_POLE_HZ,
} from './klatt-phones';

/** What the synthesizer aims for during a segment. Amplitudes are linear (1 = a full vowel). */
export interface KlattTarget {
  /** Cascade formants F1–F5 and bandwidths, Hz. */
  readonly formants: FormantSet;
  /** Formants reached at the segment's end (diphthongs), interpolated in log-Hz after `glideFrom`. */
  readonly glideTo?: FormantSet;
  /** Fraction of the segment after which the glide starts, 0–1. */
  readonly glideFrom?: number;
  /** Glottal voicing (AV). */
  readonly voicing: number;
  /** Aspiration through the cascade (AH). */
  readonly aspiration: number;
  /** Frication or burst source (AF). */
  readonly frication: number;
  /** Parallel-branch gains for F2, F3, F4, F5, F6 and the bypass, linear. */
  readonly parallel: readonly number[];
  /** Nasal zero, Hz, paired with the pole at {@link NASAL_POLE_HZ}; `undefined` = no nasal coupling. */
  readonly nasalZeroHz: number | undefined;
  /** Multiplies the singer's breathiness (a hummed nasal, mouth closed, is less breathy); default 1. */
  readonly breathiness?: number;
}

/** A target held from `start` to `end` (seconds, mix timeline); segments are sorted and do not overlap. */
export interface KlattSegment {
  readonly start: number;
  readonly end: number;
  readonly target: KlattTarget;
  /** What is sung: the syllable's nucleus (vowel or ん), a consonant, or a breath in a rest. */
  readonly role?: 'nucleus' | 'consonant' | 'breath';
  /** The phone, and which part of it (closure, burst, aspiration, frication), for diagnostics and tests. */
  readonly phone?: string;
}

/** Everything model v2's synthesizer needs. */
export interface KlattPlan {
  readonly segments: readonly KlattSegment[];
  readonly pitches: readonly PitchTarget[];
  /** End of the last segment, seconds. */
  readonly end: number;
  readonly language: SingerLanguage;
}

/** One line as the plan needs it. */
export type KlattPlannedLine = PlannedLine;

const MAX_ONSET_SECONDS = 0.28;
const DIP_SECONDS = 0.04;
/** Rests at least this long get an audible breath, seconds. */
const BREATH_REST_SECONDS = 0.34;
/** Level of an inhaled breath (aspiration). */
const BREATH_LEVEL = 0.12;
/** Phrase-final decay: length, seconds, and the voicing it decays to. */
const RELEASE_SECONDS = 0.09;
const RELEASE_VOICING = 0.35;
/** Breathiness of a hummed ん relative to the singer's (mouth closed). */
const HUM_BREATHINESS = 0.25;
/** Stressed English syllables are sung ≈1 dB louder. */
const STRESS_GAIN = 1.12;
const SILENT_PARALLEL: readonly number[] = [0, 0, 0, 0, 0, 0];
/** How far a consonant's formants sit from its locus toward the vowel, by manner (0 = at the locus). */
const VOWEL_PULL: Readonly<Record<Manner, number>> = {
  stop: 0.45,
  affricate: 0.4,
  fricative: 0.4,
  aspirate: 1,
  nasal: 0.2,
  liquid: 0.25,
  glide: 0.2,
  flap: 0.5,
  closure: 0.5,
};
const BURST_SECONDS: Partial<Record<ConsonantId, number>> = { p: 0.008, b: 0.006, t: 0.01, d: 0.008 };

function dbToGain(db: number): number {
  return db <= -90 ? 0 : 10 ** ((db - 60) / 20);
}

/** The singer's vowel targets for a nucleus (the first target of a diphthong) and the glide target. */
export function nucleusTargets(
  nucleus: NucleusId,
  singer: SingerPreset,
): { start: FormantSet; glide?: FormantSet } {
  return nucleus === 'nn'
    ? hummedTarget(KLATT_CONSONANTS.nn.locus, 40, singer)
    : vowelTargets(nucleus, singer);
}

/** A consonant's cascade formants: its locus pulled toward the vowel in log-Hz; F4, F5 from the vowel. */
function consonantFormants(id: ConsonantId, vowel: FormantSet, singer: SingerPreset): FormantSet {
  const spec = KLATT_CONSONANTS[id];
  const k = locusScale(singer.voice) * singer.formantScale;
  const pull = VOWEL_PULL[spec.manner];
  const blend = (locus: number, target: number): number =>
    Math.exp((1 - pull) * Math.log(locus * k) + pull * Math.log(target));
  const [v1, v2, v3, v4, v5] = vowel.frequencies;
  const [, , , b4, b5] = vowel.bandwidths;
  return {
    frequencies: [blend(spec.locus[0], v1), blend(spec.locus[1], v2), blend(spec.locus[2], v3), v4, v5],
    bandwidths: [spec.bandwidths[0], spec.bandwidths[1], spec.bandwidths[2], b4, b5],
  };
}

/** Vowel formants with B1 widened by an open glottis (aspiration, h). */
function openGlottis(vowel: FormantSet): FormantSet {
  const [b1, b2, b3, b4, b5] = vowel.bandwidths;
  return { frequencies: vowel.frequencies, bandwidths: [b1 + 150, b2 + 40, b3, b4, b5] };
}

function target(formants: FormantSet, values: Partial<Omit<KlattTarget, 'formants'>> = {}): KlattTarget {
  return {
    formants,
    voicing: 0,
    aspiration: 0,
    frication: 0,
    parallel: SILENT_PARALLEL,
    nasalZeroHz: undefined,
    ...values,
  };
}

/** Where a consonant stands, for its segments. */
interface ConsonantContext {
  readonly position: 'onset' | 'coda';
  readonly language: SingerLanguage;
  /** A pause (or the phrase start) comes right before this onset. */
  readonly afterPause: boolean;
  /** The consonant follows /s/ in the same onset (English sp st sk are unaspirated). */
  readonly afterS: boolean;
  /** The vowel the consonant attaches to. */
  readonly vowel: FormantSet;
}

/** Control segments of one consonant between `start` and `end`, tagged with the phone. */
function consonantSegments(
  id: ConsonantId,
  start: number,
  end: number,
  context: ConsonantContext,
  singer: SingerPreset,
): KlattSegment[] {
  const parts = ['closure', 'release', 'aspiration'];
  const manner = KLATT_CONSONANTS[id].manner;
  return untaggedConsonantSegments(id, start, end, context, singer).map((segment, index) => ({
    ...segment,
    role: 'consonant',
    phone: manner === 'stop' || manner === 'affricate' ? `${id}:${parts[index] ?? 'part'}` : id,
  }));
}

function untaggedConsonantSegments(
  id: ConsonantId,
  start: number,
  end: number,
  context: ConsonantContext,
  singer: SingerPreset,
): KlattSegment[] {
  const spec = KLATT_CONSONANTS[id];
  const formants = consonantFormants(id, context.vowel, singer);
  const parallel = (spec.parallel ?? SILENT_PARALLEL).map((db) => dbToGain(db));
  const frication = dbToGain(spec.afDb);
  const length = end - start;
  const voicelessLenis = context.language === 'ko' && isKoreanLenis(id) && context.afterPause;
  const voiced = spec.voiced && !voicelessLenis;
  switch (spec.manner) {
    case 'stop': {
      if (context.position === 'coda') {
        // Korean codas are unreleased; English/Japanese ones get a weak release.
        const released = context.language !== 'ko';
        const burst = released ? Math.min(0.01, length * 0.25) : 0;
        const closureEnd = end - burst;
        const segments: KlattSegment[] = [
          { start, end: closureEnd, target: target(formants, { voicing: voiced ? spec.voicing : 0 }) },
        ];
        if (burst > 0) {
          segments.push({
            start: closureEnd,
            end,
            target: target(formants, { frication: frication * 0.5, parallel }),
          });
        }
        return segments;
      }
      const aspiration = context.afterS
        ? 0
        : Math.min(aspirationSeconds(id, context.language, context.afterPause), length * 0.5);
      const burst = Math.min(BURST_SECONDS[id] ?? 0.014, length * 0.25);
      const closureEnd = end - burst - aspiration;
      const segments: KlattSegment[] = [
        { start, end: closureEnd, target: target(formants, { voicing: voiced ? spec.voicing : 0 }) },
        {
          start: closureEnd,
          end: closureEnd + burst,
          target: target(formants, { voicing: voiced ? spec.voicing : 0, frication, parallel }),
        },
      ];
      if (aspiration > 0) {
        segments.push({
          start: closureEnd + burst,
          end,
          target: target(openGlottis(context.vowel), { aspiration: 0.45 }),
        });
      }
      return segments;
    }
    case 'affricate': {
      const closureEnd = start + length * 0.4;
      const aspiration =
        context.position === 'onset'
          ? Math.min(aspirationSeconds(id, context.language, context.afterPause), length * 0.25)
          : 0;
      const fricationEnd = end - aspiration;
      const segments: KlattSegment[] = [
        { start, end: closureEnd, target: target(formants, { voicing: voiced ? spec.voicing * 0.5 : 0 }) },
        {
          start: closureEnd,
          end: fricationEnd,
          target: target(formants, { voicing: voiced ? spec.voicing : 0, frication, parallel }),
        },
      ];
      if (aspiration > 0) {
        segments.push({
          start: fricationEnd,
          end,
          target: target(openGlottis(context.vowel), { aspiration: 0.35 }),
        });
      }
      return segments;
    }
    case 'fricative': {
      const aspiration =
        context.position === 'onset'
          ? Math.min(aspirationSeconds(id, context.language, false), length * 0.3)
          : 0;
      const fricationEnd = end - aspiration;
      const segments: KlattSegment[] = [
        {
          start,
          end: fricationEnd,
          target: target(formants, { voicing: spec.voicing, frication, parallel }),
        },
      ];
      if (aspiration > 0) {
        segments.push({
          start: fricationEnd,
          end,
          target: target(openGlottis(context.vowel), { aspiration: 0.3 }),
        });
      }
      return segments;
    }
    case 'aspirate':
      return [{ start, end, target: target(openGlottis(context.vowel), { aspiration: 0.35 }) }];
    case 'nasal':
      return [
        { start, end, target: target(formants, { voicing: spec.voicing, nasalZeroHz: spec.nasalZeroHz }) },
      ];
    case 'flap': {
      // One short closure dip with F1 and F3 lowered (Japanese/Korean r).
      const [f1, f2, f3, f4, f5] = formants.frequencies;
      const dipped: FormantSet = {
        frequencies: [Math.min(f1, 300 * locusScale(singer.voice)), f2, f3 * 0.85, f4, f5],
        bandwidths: formants.bandwidths,
      };
      return [{ start, end, target: target(dipped, { voicing: spec.voicing }) }];
    }
    case 'closure':
      return [{ start, end, target: target(formants) }];
    default:
      return [{ start, end, target: target(formants, { voicing: spec.voicing }) }];
  }
}

/** Planned onset of one syllable. */
interface OnsetPlacement {
  readonly start: number;
  /** Lengths of the onset consonants, seconds. */
  readonly lengths: readonly number[];
  readonly dip: boolean;
  readonly afterPause: boolean;
}

function wantedOnset(
  id: ConsonantId,
  language: SingerLanguage,
  afterPause: boolean,
  afterS: boolean,
): number {
  const spec = KLATT_CONSONANTS[id];
  const aspiration =
    !afterS && (spec.manner === 'stop' || spec.manner === 'affricate' || id === 's')
      ? aspirationSeconds(id, language, afterPause)
      : 0;
  return spec.onsetSeconds + aspiration;
}

function placeOnsets(list: readonly SyllableEvent[], language: SingerLanguage): OnsetPlacement[] {
  return list.map((event, k) => {
    const syllable = event.syllable;
    const previous = list[k - 1];
    const gap = previous === undefined ? Number.POSITIVE_INFINITY : event.start - previous.end;
    const afterPause = previous === undefined || gap >= ATTACK_GAP_SECONDS;
    const wanted = syllable.onset.map((id, index) =>
      wantedOnset(id, language, afterPause && index === 0, syllable.onset[index - 1] === 's'),
    );
    const total = wanted.reduce((sum, length) => sum + length, 0);
    const room = onsetRoom(event, previous);
    const dip = needsVowelDip(event, previous);
    if (dip) return { start: event.start - DIP_SECONDS, lengths: [], dip, afterPause };
    const length = Math.min(total, MAX_ONSET_SECONDS, room);
    const scale = total > 0 ? length / total : 0;
    return { start: event.start - length, lengths: wanted.map((w) => w * scale), dip, afterPause };
  });
}

/** Breath (inhalation noise) in a rest between `from` and `to`, if the rest is long enough. */
function breathSegment(from: number, to: number, singer: SingerPreset): KlattSegment | undefined {
  const rest = to - from;
  if (rest < BREATH_REST_SECONDS) return undefined;
  const length = Math.min(0.32, rest * 0.5);
  const end = to - 0.05;
  const neutral = nucleusTargets('ah', singer).start;
  return {
    start: end - length,
    end,
    target: target(openGlottis(neutral), { aspiration: BREATH_LEVEL }),
    role: 'breath',
  };
}

/**
 * Builds model v2's plan for every line.
 * @param lines - syllables and their aligned notes, lines in time order
 * @returns segments and pitch targets, times in seconds on the mix timeline
 */
export function planKlattPerformance(lines: readonly KlattPlannedLine[], singer: SingerPreset): KlattPlan {
  const language = singer.language;
  const list = syllableEvents(lines);
  const onsets = placeOnsets(list, language);
  const segments: KlattSegment[] = [];
  const pitches: PitchTarget[] = [];
  let previousEnd = Number.NEGATIVE_INFINITY;
  let silentSince = 0;

  list.forEach((event, k) => {
    const { syllable } = event;
    const onset = onsets[k] ?? { start: event.start, lengths: [], dip: false, afterPause: true };
    const nextOnset = onsets[k + 1]?.start ?? Number.POSITIVE_INFINITY;
    const vowel = nucleusTargets(syllable.nucleus, singer);
    const stressGain = language === 'en' && syllable.stressed ? STRESS_GAIN : 1;

    if (onset.afterPause) {
      const breath = breathSegment(Math.max(silentSince, 0), onset.start, singer);
      if (breath !== undefined) segments.push(breath);
    }
    if (onset.dip) {
      segments.push({ start: onset.start, end: event.start, target: target(vowel.start, { voicing: 0.25 }) });
    } else {
      let t = onset.start;
      syllable.onset.forEach((id, index) => {
        const length = onset.lengths[index] ?? 0;
        segments.push(
          ...consonantSegments(
            id,
            t,
            t + length,
            {
              position: 'onset',
              language,
              afterPause: onset.afterPause && index === 0,
              afterS: syllable.onset[index - 1] === 's',
              vowel: vowel.start,
            },
            singer,
          ),
        );
        t += length;
      });
    }

    // The vowel holds until the next onset; a line sung straight into the next one leaves a breath.
    const end = syllableEnd(event, nextOnset, k + 1 < list.length);
    const coda = codaTiming(event, end, (id) => KLATT_CONSONANTS[id].codaSeconds);
    const codaLength = coda.length;
    const nucleusEnd = end - codaLength;
    const nucleusVoicing = (syllable.nucleus === 'nn' ? KLATT_CONSONANTS.nn.voicing : 1) * stressGain;
    // A held ん keeps its nasal zero clear of the voice's fundamental (a zero on H1 would leave the
    // murmur without a fundamental on high notes).
    const highestHz = Math.max(...event.notes.map((note) => 440 * 2 ** ((note.midi - 69) / 12)));
    const nucleusTarget = target(vowel.start, {
      ...(vowel.glide === undefined ? {} : { glideTo: vowel.glide, glideFrom: 0.5 }),
      ...(syllable.nucleus === 'nn' ? { breathiness: HUM_BREATHINESS } : {}),
      voicing: nucleusVoicing,
      nasalZeroHz:
        syllable.nucleus === 'nn'
          ? Math.max(KLATT_CONSONANTS.nn.nasalZeroHz ?? 450, 2.5 * highestHz + 50)
          : undefined,
    });
    const nextStartsSoon = nextOnset - end < ATTACK_GAP_SECONDS;
    const release =
      !nextStartsSoon && codaLength === 0 ? Math.min(RELEASE_SECONDS, 0.3 * (nucleusEnd - event.start)) : 0;
    segments.push({ start: event.start, end: nucleusEnd - release, target: nucleusTarget, role: 'nucleus' });
    if (release > 0) {
      segments.push({
        start: nucleusEnd - release,
        end: nucleusEnd,
        role: 'nucleus',
        target: {
          ...nucleusTarget,
          formants: vowel.glide ?? vowel.start,
          glideTo: undefined,
          voicing: nucleusVoicing * RELEASE_VOICING,
          aspiration: 0.04,
        },
      });
    }
    let t = nucleusEnd;
    syllable.coda.forEach((id, index) => {
      const length = (coda.wanted[index] ?? 0) * coda.scale;
      segments.push(
        ...consonantSegments(
          id,
          t,
          t + length,
          { position: 'coda', language, afterPause: false, afterS: false, vowel: vowel.glide ?? vowel.start },
          singer,
        ),
      );
      t += length;
    });

    pitches.push(...pitchTargets(event, onset.start, previousEnd));
    previousEnd = end;
    silentSince = end;
  });
  const end = segments.reduce((latest, segment) => Math.max(latest, segment.end), 0);
  return { segments: segments.filter((s) => s.end > s.start), pitches, end, language };
}

/** The pole of the nasal pair, re-exported for the synthesizer. */
export { NASAL_POLE_HZ };
