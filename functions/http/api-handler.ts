/**
 * Builds an exported API handler: the one middy chain both operations share, around a plain
 * function that receives the event and the tracked, authenticated request.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Tracer } from '@aws-lambda-powertools/tracer';
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
import { observability } from './observability';
import { rateLimit } from './rate-limit';
import { logger, serviceContext } from './service-context';

/** What an operation serves. */
export interface OperationOptions {
  /** The API Gateway route key the handler answers; any other route gets the 404 error body. */
  readonly routeKey: (typeof ROUTE_KEYS)[number];
  /** Whether the operation takes a JSON body (parsed into `event.body`, at most 64 KiB). */
  readonly jsonBody: boolean;
  /**
   * Whether each authenticated request counts against its app's per-minute limit
   * (`RATE_LIMIT_PER_MINUTE`; 429 beyond it). Default false: only Engine.Invoke sets it, so the
   * read-only usage function never writes.
   */
  readonly rateLimited?: boolean;
  /** Powertools Tracer for a handler subsegment; only Engine.Invoke passes one (usage bundle budget). */
  readonly tracer?: Tracer;
}

/**
 * Wraps an operation in the middleware chain: metrics and tracing, error body (so it sees every failure),
 * Lambda context in logs, header normalising, `tid`, route guard, bearer authentication, the rate
 * limit when the operation is rate-limited, and the JSON body parser when it takes a body.
 */
export function apiHandler(
  options: OperationOptions,
  operation: (event: APIGatewayProxyEventV2, request: TrackedRequest) => Promise<APIGatewayProxyResultV2>,
): ApiHandler {
  // observability comes first so that its after/onError run last and see the final status.
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, RequestContext>()
    .use(observability({ tracer: options.tracer }))
    .use(errorHandler(logger))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpHeaderNormalizer())
    .use(requestTracking(logger))
    .use(routeGuard(options.routeKey))
    .use(authentication(() => serviceContext().authenticator, logger));
  if (options.rateLimited === true) chain.use(rateLimit(() => serviceContext().rateLimiter));
  if (options.jsonBody) chain.use(jsonBody());
  return chain.handler((event, context) => operation(event, requestOf(context)));
}
