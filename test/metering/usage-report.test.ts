import { describe, expect, it } from 'vitest';
import { buildUsageReport } from '../../lib/metering/usage-report';
import type { UsageAggregate } from '../../lib/storage/usage-store';

const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
const TURBO = '5A22C6DFE641404096876E9928EA1294.turbo';
const range = { start: '2024-06-27', end: '2024-06-28' };

function aggregate(
  date: string,
  engineId: string,
  count: number,
  response: number,
  request = 0,
  service = 0,
): UsageAggregate {
  return { date, engineId, count, request, response, service };
}

const aggregates = [
  aggregate('2024-06-27', HIKARI, 2, 46),
  aggregate('2024-06-27', TURBO, 1, 5, 3, 1),
  aggregate('2024-06-28', HIKARI, 16, 368),
];

describe('buildUsageReport', () => {
  it('totals every aggregate, with total = request + response + service, and no rows without flags', () => {
    const report = buildUsageReport(range, aggregates, { byEngine: false, byDate: false });
    expect(report).toEqual({
      start: '2024-06-27',
      end: '2024-06-28',
      usage: { request: 3, response: 419, service: 1, total: 423 },
      usage_list: [],
    });
  });

  it('groups by engine only', () => {
    const report = buildUsageReport(range, aggregates, { byEngine: true, byDate: false });
    expect(report.usage_list).toEqual([
      { count: 18, engine_id: HIKARI, request: 0, response: 414, service: 0 },
      { count: 1, engine_id: TURBO, request: 3, response: 5, service: 1 },
    ]);
  });

  it('groups by date only, newest first', () => {
    const report = buildUsageReport(range, aggregates, { byEngine: false, byDate: true });
    expect(report.usage_list).toEqual([
      { date: '2024-06-28', count: 16, request: 0, response: 368, service: 0 },
      { date: '2024-06-27', count: 3, request: 3, response: 51, service: 1 },
    ]);
  });

  it('groups by date and engine, date descending then engine ascending, rows summing to the totals', () => {
    const report = buildUsageReport(range, aggregates, { byEngine: true, byDate: true });
    expect(report.usage_list.map((row) => [row.date, row.engine_id])).toEqual([
      ['2024-06-28', HIKARI],
      ['2024-06-27', HIKARI],
      ['2024-06-27', TURBO],
    ]);
    const sum = report.usage_list.reduce((total, row) => total + row.request + row.response + row.service, 0);
    expect(sum).toBe(report.usage.total);
  });

  it('reports zeros for an empty range', () => {
    const report = buildUsageReport(range, [], { byEngine: true, byDate: true });
    expect(report.usage).toEqual({ request: 0, response: 0, service: 0, total: 0 });
    expect(report.usage_list).toEqual([]);
  });
});
