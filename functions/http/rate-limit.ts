/**
 * Middleware that applies the per-app rate limit once the caller is authenticated, so every
 * authenticated attempt counts (whatever its body) and unauthenticated noise does not.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { RateLimiter } from '../../lib/metering/rate-limit';
import { type RequestContext, requestOf } from './middleware';

/**
 * Admits the request against its app's per-minute limit. Attach it after `authentication`.
 * Throws ServiceError `rateLimited` (429 with `Retry-After`) or StorageUnavailableError (503).
 * @param limiter - the container's limiter, read on first use
 */
export function rateLimit(
  limiter: () => RateLimiter,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, RequestContext> {
  return {
    before: async (request) => {
      const { principal, receivedAt } = requestOf(request.context);
      await limiter().admit(principal.appId, receivedAt);
    },
  };
}
