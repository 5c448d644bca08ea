/**
 * Lambda handler of Engine.Invoke: `POST /v1/engines/{engine_id}[?show_refs=true]`.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { EngineCatalog } from '../lib/engines/catalog';
import { invokeEngine } from '../lib/engines/invoke-engine';
import { parseFlag } from '../lib/query-flags';
import { jsonResponse } from './http/json-response';
import {
  type ApiHandler,
  authentication,
  errorHandler,
  jsonBody,
  type RequestContext,
  requestOf,
  requestTracking,
  routeGuard,
} from './http/middleware';
import { logger, serviceContext } from './http/service-context';

let catalog: EngineCatalog | undefined;

/** The engine catalog, built once per container (engines load their data on first use). */
function engineCatalog(): EngineCatalog {
  catalog ??= new EngineCatalog({ kuromojiDictDir: serviceContext().config.kuromojiDictDir });
  return catalog;
}

async function invoke(
  event: APIGatewayProxyEventV2,
  context: RequestContext,
): Promise<APIGatewayProxyResultV2> {
  const { tid, receivedAt, principal } = requestOf(context);
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
}

/** The exported Lambda handler (API Gateway HTTP API, payload format 2.0). */
export const handler: ApiHandler = middy<
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  Error,
  RequestContext
>()
  .use(errorHandler(logger))
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(httpHeaderNormalizer())
  .use(requestTracking(logger))
  .use(routeGuard('POST /v1/engines/{engine_id}'))
  .use(authentication(() => serviceContext().authenticator, logger))
  .use(jsonBody())
  .handler(invoke);
