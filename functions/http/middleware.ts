/**
 * The middy middleware both handlers share: request tracking, routing guard, bearer authentication,
 * JSON body parsing and the one error handler.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { Authenticator, Principal } from '../../lib/auth/authenticate';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { errorResponse, toServiceError } from './error-body';

/**
 * Lambda context plus what the middleware learns about the request. The additions are optional so
 * that a plain Lambda `Context` is accepted by the exported handlers; read them with {@link requestOf}.
 */
export interface RequestContext extends Context {
  /** Tracking id: the API Gateway request id, or a fresh UUID when there is none. */
  tid?: string;
  /** When the request reached the API (API Gateway `timeEpoch`). */
  receivedAt?: Date;
  /** The authenticated caller; set by {@link authentication}. */
  principal?: Principal;
}

/** What a handler knows about its request once the middleware has run. */
export interface TrackedRequest {
  readonly tid: string;
  readonly receivedAt: Date;
  readonly principal: Principal;
}

/** The signature of the exported Lambda handlers (API Gateway HTTP API, payload format 2.0). */
export type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, RequestContext>;

/** The operations the API serves, for the not-found message. */
export const ROUTE_KEYS = ['POST /v1/engines/{engine_id}', 'GET /v1/apps/{app_id}/usages'] as const;

/**
 * Sets `tid` and `receivedAt`, and appends `tid` to every log line of the request.
 */
export function requestTracking(logger: Logger): HttpMiddleware {
  return {
    before: (request) => {
      const { requestId, timeEpoch } = request.event.requestContext ?? {};
      request.context.tid = typeof requestId === 'string' && requestId !== '' ? requestId : randomUUID();
      request.context.receivedAt = new Date(typeof timeEpoch === 'number' ? timeEpoch : Date.now());
      logger.appendKeys({ tid: request.context.tid });
    },
  };
}

/**
 * Rejects events whose route is not `routeKey` (the `$default` route lands here) with 404.
 */
export function routeGuard(routeKey: (typeof ROUTE_KEYS)[number]): HttpMiddleware {
  return {
    before: (request) => {
      if (request.event.routeKey === routeKey) return;
      const { method, path } = request.event.requestContext?.http ?? {
        method: '?',
        path: request.event.rawPath,
      };
      throw new NotFoundError(
        'routeNotFound',
        `No operation at ${method} ${String(path).slice(0, 200)}; the API serves ${ROUTE_KEYS.join(' and ')}`,
      );
    },
  };
}

/**
 * Authenticates the bearer token and puts the caller in `context.principal`.
 * Throws `AuthenticationError` (401) or `StorageUnavailableError` (503) from the authenticator.
 */
export function authentication(authenticator: () => Authenticator, logger: Logger): HttpMiddleware {
  return {
    before: async (request) => {
      const principal = await authenticator().authenticate(request.event.headers?.authorization);
      request.context.principal = principal;
      logger.appendKeys({ app_id: principal.appId, credential_id: principal.credentialId });
    },
  };
}

/** Largest accepted request body, in bytes (64 KiB; documented in the README's limits table). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Parses a JSON body with middy's parser, turning its failures into our 400/413/415 errors.
 * @param maxBytes - largest accepted body in bytes (default {@link MAX_BODY_BYTES})
 */
export function jsonBody(maxBytes: number = MAX_BODY_BYTES): HttpMiddleware {
  const parser = httpJsonBodyParser();
  return {
    before: async (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === undefined || body === '') {
        throw new ValidationError('invalidRequest', 'A JSON request body is required');
      }
      const bytes = isBase64Encoded ? Buffer.byteLength(body, 'base64') : Buffer.byteLength(body, 'utf8');
      if (bytes > maxBytes) {
        throw new ValidationError(
          'requestTooLarge',
          `The request body has ${bytes} bytes; at most ${maxBytes} are accepted`,
          {
            details: { max_bytes: maxBytes },
          },
        );
      }
      // Media types are case-insensitive (RFC 9110 §8.3.1); middy's parser matches lower case only.
      const headers = request.event.headers;
      if (headers?.['content-type'] !== undefined)
        headers['content-type'] = headers['content-type'].toLowerCase();
      try {
        await parser.before?.(request as Parameters<NonNullable<typeof parser.before>>[0]);
      } catch (error) {
        if (error instanceof Error && error.message === 'Unsupported Media Type') {
          throw new ValidationError(
            'unsupportedMediaType',
            'Send the body as JSON with "Content-Type: application/json"',
          );
        }
        throw new ValidationError('invalidRequest', 'The request body is not valid JSON');
      }
    },
  };
}

/**
 * Renders every failure as the documented error body with the `tid` header, and logs it
 * (5xx with the cause, 4xx as a one-line notice). Attach it first so it handles errors of every
 * other middleware.
 */
export function errorHandler(logger: Logger): HttpMiddleware {
  return {
    onError: (request) => {
      const error = toServiceError(request.error);
      const tid = request.context.tid ?? randomUUID();
      // Named explicitly: injectLambdaContext's onError may already have reset the appended keys.
      const keys = { tid, app_id: request.context.principal?.appId };
      if (error.status >= 500) {
        logger.error('Request failed', {
          ...keys,
          error_code: error.code,
          error: request.error ?? undefined,
        });
      } else {
        logger.info('Request rejected', { ...keys, error_code: error.code, status: error.status });
      }
      request.response = errorResponse(error, tid);
    },
  };
}

/**
 * The tracking id, arrival time and caller of the request.
 * @throws Error when the tracking or authentication middleware did not run (a wiring bug: 500)
 */
export function requestOf(context: RequestContext): TrackedRequest {
  const { tid, receivedAt, principal } = context;
  if (tid === undefined || receivedAt === undefined || principal === undefined) {
    throw new Error('requestTracking and authentication middleware must run before the handler');
  }
  return { tid, receivedAt, principal };
}
