/**
 * Lambda handler of Engine.Invoke: `POST /v1/engines/{engine_id}[?show_refs=true]`, optionally
 * idempotent with an `Idempotency-Key` header.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { EngineCatalog } from '../lib/engines/catalog';
import { invokeEngine } from '../lib/engines/invoke-engine';
import type { IdempotencyDependencies } from '../lib/idempotency/idempotency-guard';
import { parseFlag } from '../lib/query-flags';
import { IdempotencyStore } from '../lib/storage/idempotency-store';
import { createResultStore } from '../lib/storage/result-store/create-result-store';
import { apiHandler } from './http/api-handler';
import { jsonResponse } from './http/json-response';
import type { ApiHandler } from './http/middleware';
import { recordInvocation } from './http/observability';
import { serviceContext } from './http/service-context';

/** X-Ray tracer of the invoke function only: the X-Ray SDK would break the usage function's bundle budget. */
const tracer = new Tracer();
let catalog: EngineCatalog | undefined;
let idempotency: IdempotencyDependencies | undefined;

/** The engine catalog, built once per container (engines load their data on first use). */
function engineCatalog(): EngineCatalog {
  catalog ??= new EngineCatalog({ kuromojiDictDir: serviceContext().config.kuromojiDictDir });
  return catalog;
}

/** The idempotency key store and the result store, built once per container. */
function idempotencyDependencies(): IdempotencyDependencies {
  if (idempotency === undefined) {
    const { config, client } = serviceContext();
    idempotency = {
      store: new IdempotencyStore({
        client,
        tableName: config.tableName,
      }),
      resultStore: createResultStore(config),
      ttlSeconds: config.idempotencyTtlSeconds,
    };
  }
  return idempotency;
}

/** Marks a replayed response, so clients can tell it from a fresh run. */
function markReplayed(response: APIGatewayProxyResultV2): APIGatewayProxyResultV2 {
  if (typeof response === 'string') return response;
  return { ...response, headers: { ...response.headers, 'idempotent-replayed': 'true' } };
}

/** The exported Lambda handler (API Gateway HTTP API, payload format 2.0). */
export const handler: ApiHandler = apiHandler(
  { routeKey: 'POST /v1/engines/{engine_id}', jsonBody: true, rateLimited: true, tracer },
  async (event, { tid, receivedAt, principal }) => {
    const engineId = event.pathParameters?.engine_id ?? '';
    const { response, replayed, renderMs } = await invokeEngine(
      {
        engineId,
        body: event.body,
        appId: principal.appId,
        tid,
        receivedAt,
        showRefs: parseFlag('show_refs', event.queryStringParameters?.show_refs),
        idempotencyKey: event.headers?.['idempotency-key'],
      },
      { ...serviceContext(), catalog: engineCatalog(), idempotency: idempotencyDependencies() },
    );
    if (renderMs !== undefined)
      recordInvocation({ engineId, energyTotal: response.usage.energy.total, renderMs });
    const result = jsonResponse(response, tid);
    return replayed ? markReplayed(result) : result;
  },
);
