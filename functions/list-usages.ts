/**
 * Lambda handler of Usages.List: `GET /v1/apps/{app_id}/usages?start&end&detail&date`.
 * It also serves API Gateway's `$default` route, answering unknown routes with the 404 error body.
 */
import { listUsages } from '../lib/metering/list-usages';
import { apiHandler } from './http/api-handler';
import { jsonResponse } from './http/json-response';
import type { ApiHandler } from './http/middleware';
import { serviceContext } from './http/service-context';

/** The exported Lambda handler (API Gateway HTTP API, payload format 2.0). */
export const handler: ApiHandler = apiHandler(
  { routeKey: 'GET /v1/apps/{app_id}/usages', jsonBody: false },
  async (event, { tid, principal }) => {
    const report = await listUsages(
      {
        appId: event.pathParameters?.app_id ?? '',
        callerAppId: principal.appId,
        query: event.queryStringParameters ?? {},
      },
      serviceContext(),
    );
    return jsonResponse(report, tid);
  },
);
