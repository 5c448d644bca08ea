/**
 * Builds an exported API handler: the one middy chain both operations share, around a plain
 * function that receives the event and the tracked, authenticated request.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import {
  type ApiHandler,
  authentication,
  errorHandler,
  jsonBody,
  type RequestContext,
  type ROUTE_KEYS,
  requestOf,
  requestTracking,
  routeGuard,
  type TrackedRequest,
} from './middleware';
import { logger, serviceContext } from './service-context';

/** What an operation serves. */
export interface OperationOptions {
  /** The API Gateway route key the handler answers; any other route gets the 404 error body. */
  readonly routeKey: (typeof ROUTE_KEYS)[number];
  /** Whether the operation takes a JSON body (parsed into `event.body`, at most 64 KiB). */
  readonly jsonBody: boolean;
}

/**
 * Wraps an operation in the middleware chain: error body (first, so it sees every failure),
 * Lambda context in logs, header normalising, `tid`, route guard, bearer authentication, and the
 * JSON body parser when the operation takes a body.
 */
export function apiHandler(
  options: OperationOptions,
  operation: (event: APIGatewayProxyEventV2, request: TrackedRequest) => Promise<APIGatewayProxyResultV2>,
): ApiHandler {
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, RequestContext>()
    .use(errorHandler(logger))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpHeaderNormalizer())
    .use(requestTracking(logger))
    .use(routeGuard(options.routeKey))
    .use(authentication(() => serviceContext().authenticator, logger));
  if (options.jsonBody) chain.use(jsonBody());
  return chain.handler((event, context) => operation(event, requestOf(context)));
}
