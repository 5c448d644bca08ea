/**
 * Calendar days of usage: which day an instant belongs to, and checked report ranges.
 *
 * Days are `yyyy-MM-dd` strings in the configured IANA time zone (UTC by default, api-notes B4).
 */
import { ValidationError } from '../errors';

/** Longest report range, in days, both ends included (api-notes B6). */
export const MAX_RANGE_DAYS = 366;

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The calendar day of an instant in a time zone.
 * @param instant - the moment (e.g. when the request was received)
 * @param timeZone - IANA zone, e.g. `UTC` or `Asia/Tokyo`
 * @returns `yyyy-MM-dd`
 */
export function usageDayOf(instant: Date, timeZone: string): string {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    // en-CA formats dates as yyyy-MM-dd.
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter.format(instant);
}

/** Days since 1970-01-01 of a valid `yyyy-MM-dd`, or undefined when the text is not a real calendar day. */
function dayNumber(text: string): number | undefined {
  const match = DAY_PATTERN.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day)
    return undefined;
  return ms / MS_PER_DAY;
}

/** An inclusive range of calendar days. */
export interface DayRange {
  /** First day, `yyyy-MM-dd`. */
  readonly start: string;
  /** Last day, `yyyy-MM-dd`, included. */
  readonly end: string;
}

/**
 * Checks the `start` and `end` query values of a usage report.
 * @param start - raw query value (may be undefined)
 * @param end - raw query value (may be undefined)
 * @throws ValidationError `invalidParameter` when a value is missing or not a real `yyyy-MM-dd` day;
 *   `invalidDateRange` when start > end or the range exceeds {@link MAX_RANGE_DAYS} days
 */
export function parseDayRange(start: unknown, end: unknown): DayRange {
  const checked = (name: string, value: unknown): { text: string; day: number } => {
    if (typeof value !== 'string' || value === '') {
      throw new ValidationError('invalidParameter', `Query parameter "${name}" is required, as yyyy-MM-dd`, {
        details: { parameter: name },
      });
    }
    const day = dayNumber(value);
    if (day === undefined) {
      throw new ValidationError(
        'invalidParameter',
        `Query parameter "${name}" must be a calendar day as yyyy-MM-dd, got "${value.slice(0, 40)}"`,
        { details: { parameter: name } },
      );
    }
    return { text: value, day };
  };
  const from = checked('start', start);
  const to = checked('end', end);
  if (from.day > to.day) {
    throw new ValidationError(
      'invalidDateRange',
      `"start" (${from.text}) must not be after "end" (${to.text})`,
    );
  }
  const days = to.day - from.day + 1;
  if (days > MAX_RANGE_DAYS) {
    throw new ValidationError(
      'invalidDateRange',
      `The range covers ${days} days; at most ${MAX_RANGE_DAYS} days (start and end included) are allowed`,
      { details: { days, max_days: MAX_RANGE_DAYS } },
    );
  }
  return { start: from.text, end: to.text };
}
