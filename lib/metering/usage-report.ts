/**
 * Usages.List report: totals over a day range and the rows grouped by engine and/or by day
 * (api-notes B5).
 */
import type { UsageAggregate } from '../storage/usage-store';
import type { DayRange } from './usage-days';

/** Energy totals of a report, in energy units; `total` = request + response + service. */
export interface UsageTotals {
  readonly request: number;
  readonly response: number;
  readonly service: number;
  readonly total: number;
}

/** One `usage_list` row; `date` and `engine_id` are present only when grouped by them. */
export interface UsageRow {
  readonly date?: string;
  readonly count: number;
  readonly engine_id?: string;
  readonly request: number;
  readonly response: number;
  readonly service: number;
}

/** The Usages.List response body. */
export interface UsageReport {
  readonly start: string;
  readonly end: string;
  readonly usage: UsageTotals;
  readonly usage_list: UsageRow[];
}

/** Which breakdowns the caller asked for (`detail` = by engine, `date` = by day). */
export interface UsageGrouping {
  readonly byEngine: boolean;
  readonly byDate: boolean;
}

/**
 * Builds the report from the aggregates of the range.
 *
 * Rows: neither flag → none; by engine → one per engine; by date → one per day with usage;
 * both → one per (day, engine). Order: date descending, then engine id ascending.
 * Totals are the sums over all aggregates, so they equal the sums of the rows.
 */
export function buildUsageReport(
  range: DayRange,
  aggregates: readonly UsageAggregate[],
  grouping: UsageGrouping,
): UsageReport {
  let request = 0;
  let response = 0;
  let service = 0;
  for (const aggregate of aggregates) {
    request += aggregate.request;
    response += aggregate.response;
    service += aggregate.service;
  }
  const usage = { request, response, service, total: request + response + service };
  if (!grouping.byEngine && !grouping.byDate)
    return { start: range.start, end: range.end, usage, usage_list: [] };

  const groups = new Map<
    string,
    { date: string; engineId: string; count: number; request: number; response: number; service: number }
  >();
  for (const aggregate of aggregates) {
    const date = grouping.byDate ? aggregate.date : '';
    const engineId = grouping.byEngine ? aggregate.engineId : '';
    const key = `${date}\u0000${engineId}`;
    const group = groups.get(key) ?? { date, engineId, count: 0, request: 0, response: 0, service: 0 };
    group.count += aggregate.count;
    group.request += aggregate.request;
    group.response += aggregate.response;
    group.service += aggregate.service;
    groups.set(key, group);
  }
  const rows = [...groups.values()]
    .sort((a, b) => (a.date === b.date ? compare(a.engineId, b.engineId) : compare(b.date, a.date)))
    .map(
      (group): UsageRow => ({
        ...(grouping.byDate ? { date: group.date } : {}),
        count: group.count,
        ...(grouping.byEngine ? { engine_id: group.engineId } : {}),
        request: group.request,
        response: group.response,
        service: group.service,
      }),
    );
  return { start: range.start, end: range.end, usage, usage_list: rows };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
