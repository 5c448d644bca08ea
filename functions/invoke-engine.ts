/**
 * Lambda handler of Engine.Invoke: `POST /v1/engines/{engine_id}[?show_refs=true]`.
 */
import { EngineCatalog } from '../lib/engines/catalog';
import { invokeEngine } from '../lib/engines/invoke-engine';
import { parseFlag } from '../lib/query-flags';
import { apiHandler } from './http/api-handler';
import { jsonResponse } from './http/json-response';
import type { ApiHandler } from './http/middleware';
import { serviceContext } from './http/service-context';

let catalog: EngineCatalog | undefined;

/** The engine catalog, built once per container (engines load their data on first use). */
function engineCatalog(): EngineCatalog {
  catalog ??= new EngineCatalog({ kuromojiDictDir: serviceContext().config.kuromojiDictDir });
  return catalog;
}

/** The exported Lambda handler (API Gateway HTTP API, payload format 2.0). */
export const handler: ApiHandler = apiHandler(
  { routeKey: 'POST /v1/engines/{engine_id}', jsonBody: true },
  async (event, { tid, receivedAt, principal }) => {
    const response = await invokeEngine(
      {
        engineId: event.pathParameters?.engine_id ?? '',
        body: event.body,
        appId: principal.appId,
        tid,
        receivedAt,
        showRefs: parseFlag('show_refs', event.queryStringParameters?.show_refs),
      },
      { ...serviceContext(), catalog: engineCatalog() },
    );
    return jsonResponse(response, tid);
  },
);
