/**
 * A small local stand-in for API Gateway's HTTP API: turns each HTTP request into a payload-2.0
 * event, calls the very handler Lambda would call for the matching route, and writes its result back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { errorResponse } from '../../functions/http/error-body';
import type { ApiHandler } from '../../functions/http/middleware';
import { ServiceError } from '../../lib/errors';

/** A Lambda handler as the gateway calls it (the type of the exported handlers in `functions/`). */
export type HttpHandler = ApiHandler;

/** One route: `METHOD /path/{param}` → handler, as in the CDK stack. */
export interface GatewayRoute {
  readonly routeKey: string;
  readonly handler: HttpHandler;
}

/** Gateway settings. */
export interface GatewayOptions {
  readonly routes: readonly GatewayRoute[];
  /** Handler of the `$default` route (requests no route matches). */
  readonly defaultHandler: HttpHandler;
  /** Largest accepted body in bytes (API Gateway's limit: 10 MB). */
  readonly maxBodyBytes?: number;
  /** Simulated Lambda time-out in ms, for `getRemainingTimeInMillis` (default 28 000). */
  readonly timeoutMs?: number;
}

const TEXT_TYPES = /^(application\/(.+\+)?json|text\/|application\/x-www-form-urlencoded)/i;

interface CompiledRoute {
  readonly method: string;
  readonly pattern: RegExp;
  readonly names: string[];
  readonly route: GatewayRoute;
}

function compile(route: GatewayRoute): CompiledRoute {
  const [method = '', path = ''] = route.routeKey.split(' ');
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param?.[1]) {
        names.push(param[1]);
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { method, pattern: new RegExp(`^${source}$`), names, route };
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) return 'too-large';
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A Lambda-like context for a local call.
 * @param timeoutMs - simulated time-out, for `getRemainingTimeInMillis`
 */
export function lambdaContext(timeoutMs: number, requestId: string): Context {
  const deadline = Date.now() + timeoutMs;
  const unsupported = () => {
    throw new Error('not available in the local gateway');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'local',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:local',
    memoryLimitInMB: '1536',
    awsRequestId: requestId,
    logGroupName: 'local',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyResultV2): void {
  if (typeof result === 'string' || result === undefined || result === null || !('statusCode' in result)) {
    // HTTP API infers a 200 JSON response from a non-structured result.
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const headers: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body =
    result.body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = body.length;
  response.writeHead(result.statusCode ?? 200, headers);
  if (result.cookies?.length) response.setHeader('set-cookie', result.cookies);
  response.end(body);
}

/**
 * Builds the payload-2.0 event API Gateway would send for a request.
 * @param body - raw body bytes; sent as text for JSON/text content types, base64 otherwise
 */
export function toEvent(
  request: IncomingMessage,
  body: Buffer,
  match: { routeKey: string; pathParameters?: Record<string, string> },
  requestId: string,
): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== 'cookie')
      headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || TEXT_TYPES.test(contentType);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: match.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: request.headers.cookie?.split(';').map((cookie) => cookie.trim()),
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters: match.pathParameters,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: match.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : body.toString(isText ? 'utf8' : 'base64'),
    isBase64Encoded: !isText,
  };
}

/**
 * Creates (but does not start) the local gateway server.
 */
export function createGateway(options: GatewayOptions): Server {
  const routes = options.routes.map(compile);
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 28_000;

  return createServer(async (request, response) => {
    const requestId = randomUUID();
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      let handler = options.defaultHandler;
      let match: { routeKey: string; pathParameters?: Record<string, string> } = { routeKey: '$default' };
      for (const route of routes) {
        const found = route.method === request.method ? route.pattern.exec(path) : null;
        if (found) {
          const pathParameters = Object.fromEntries(
            route.names.map((name, index) => [name, decode(found[index + 1] ?? '')]),
          );
          match = { routeKey: route.route.routeKey, pathParameters };
          handler = route.route.handler;
          break;
        }
      }
      const body = await readBody(request, maxBodyBytes);
      if (body === 'too-large') {
        send(
          response,
          errorResponse(
            new ServiceError('requestTooLarge', `The request body exceeds ${maxBodyBytes} bytes`),
            requestId,
          ),
        );
        return;
      }
      const result = await handler(
        toEvent(request, body, match, requestId),
        lambdaContext(timeoutMs, requestId),
      );
      send(response, result);
    } catch (error) {
      // What API Gateway does when the function itself crashes, but with our error body.
      send(
        response,
        errorResponse(new ServiceError('internalError', 'The function failed', { cause: error }), requestId),
      );
    }
  });
}
