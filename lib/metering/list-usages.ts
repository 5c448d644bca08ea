/**
 * The Usages.List operation: authorize, check the query, read aggregates, build the report.
 */
import { ForbiddenError } from '../errors';
import { parseFlag } from '../query-flags';
import type { UsageStore } from '../storage/usage-store';
import { parseDayRange } from './usage-days';
import { buildUsageReport, type UsageReport } from './usage-report';

/** Raw inputs of a Usages.List request, as received (query values are untrusted strings). */
export interface ListUsagesRequest {
  /** `app_id` path parameter. */
  readonly appId: string;
  /** App id of the authenticated token. */
  readonly callerAppId: string;
  readonly query: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs Usages.List.
 * @throws ForbiddenError when the token's app is not the app asked for
 * @throws ValidationError for bad dates, range or flags
 * @throws StorageUnavailableError when the store cannot be read
 */
export async function listUsages(
  request: ListUsagesRequest,
  deps: { usageStore: UsageStore },
): Promise<UsageReport> {
  if (request.appId !== request.callerAppId) {
    throw new ForbiddenError('This token may only read the usage of its own app', {
      details: { app_id: request.appId },
    });
  }
  const range = parseDayRange(request.query.start, request.query.end);
  const grouping = {
    byEngine: parseFlag('detail', request.query.detail),
    byDate: parseFlag('date', request.query.date),
  };
  const aggregates = await deps.usageStore.listAggregates(request.appId, range);
  return buildUsageReport(range, aggregates, grouping);
}
