import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lib/errors';
import { MAX_RANGE_DAYS, parseDayRange, usageDayOf } from '../../lib/metering/usage-days';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return error instanceof ServiceError ? error.code : 'not a ServiceError';
  }
  return undefined;
}

describe('usageDayOf', () => {
  it('counts an instant on its UTC calendar day by default', () => {
    expect(usageDayOf(new Date('2024-06-27T23:59:59.999Z'), 'UTC')).toBe('2024-06-27');
    expect(usageDayOf(new Date('2024-06-28T00:00:00.000Z'), 'UTC')).toBe('2024-06-28');
  });

  it('uses the configured IANA zone', () => {
    expect(usageDayOf(new Date('2024-06-27T15:30:00Z'), 'Asia/Tokyo')).toBe('2024-06-28');
    expect(usageDayOf(new Date('2024-06-28T03:00:00Z'), 'America/Los_Angeles')).toBe('2024-06-27');
  });
});

describe('parseDayRange', () => {
  it('accepts an inclusive range of real days', () => {
    expect(parseDayRange('2024-06-27', '2024-06-28')).toEqual({ start: '2024-06-27', end: '2024-06-28' });
    expect(parseDayRange('2024-02-29', '2024-02-29')).toEqual({ start: '2024-02-29', end: '2024-02-29' });
  });

  it('rejects missing, malformed and impossible days as invalid parameters', () => {
    expect(codeOf(() => parseDayRange(undefined, '2024-06-28'))).toBe('invalidParameter');
    expect(codeOf(() => parseDayRange('2024-6-27', '2024-06-28'))).toBe('invalidParameter');
    expect(codeOf(() => parseDayRange('2023-02-29', '2023-03-01'))).toBe('invalidParameter');
    expect(codeOf(() => parseDayRange('2024-06-27', '2024-13-01'))).toBe('invalidParameter');
    expect(codeOf(() => parseDayRange('2024-06-27T00:00', '2024-06-28'))).toBe('invalidParameter');
  });

  it('rejects start after end and ranges longer than 366 days', () => {
    expect(codeOf(() => parseDayRange('2024-06-28', '2024-06-27'))).toBe('invalidDateRange');
    // 2024 is a leap year: 2024-01-01..2024-12-31 is exactly 366 days.
    expect(parseDayRange('2024-01-01', '2024-12-31').end).toBe('2024-12-31');
    expect(codeOf(() => parseDayRange('2024-01-01', '2025-01-01'))).toBe('invalidDateRange');
    expect(MAX_RANGE_DAYS).toBe(366);
  });
});
