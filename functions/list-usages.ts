/**
 * Lambda handler of Usages.List: `GET /v1/apps/{app_id}/usages?start&end&detail&date`.
 * It also serves API Gateway's `$default` route, answering unknown routes with the 404 error body.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { listUsages } from '../lib/metering/list-usages';
import { jsonResponse } from './http/json-response';
import {
  type ApiHandler,
  authentication,
  errorHandler,
  type RequestContext,
  requestOf,
  requestTracking,
  routeGuard,
} from './http/middleware';
import { logger, serviceContext } from './http/service-context';

async function list(
  event: APIGatewayProxyEventV2,
  context: RequestContext,
): Promise<APIGatewayProxyResultV2> {
  const { tid, principal } = requestOf(context);
  const report = await listUsages(
    {
      appId: event.pathParameters?.app_id ?? '',
      callerAppId: principal.appId,
      query: event.queryStringParameters ?? {},
    },
    serviceContext(),
  );
  return jsonResponse(report, tid);
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
  .use(routeGuard('GET /v1/apps/{app_id}/usages'))
  .use(authentication(() => serviceContext().authenticator, logger))
  .handler(list);
