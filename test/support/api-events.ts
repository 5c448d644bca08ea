/**
 * Factories of API Gateway HTTP API (payload 2.0) events and Lambda contexts for handler tests.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { lambdaContext as gatewayLambdaContext } from '../../infra/local/gateway';

/** Parts of a request; everything else gets API Gateway's usual values. */
export interface EventParts {
  routeKey: string;
  path: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}

/** A payload-2.0 event as API Gateway sends it. */
export function apiEvent(parts: EventParts): APIGatewayProxyEventV2 {
  const [method = 'GET'] = parts.routeKey === '$default' ? ['GET'] : parts.routeKey.split(' ');
  const now = new Date();
  return {
    version: '2.0',
    routeKey: parts.routeKey,
    rawPath: parts.path,
    rawQueryString: new URLSearchParams(parts.query ?? {}).toString(),
    headers: { host: 'api.test.local', ...parts.headers },
    queryStringParameters: parts.query,
    pathParameters: parts.pathParameters,
    requestContext: {
      accountId: '123456789012',
      apiId: 'test',
      domainName: 'api.test.local',
      domainPrefix: 'api',
      http: { method, path: parts.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: parts.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: parts.body,
    isBase64Encoded: false,
  };
}

/** A Lambda context with 28 s to run (the local gateway's). */
export function lambdaContext(): Context {
  return gatewayLambdaContext(28_000, randomUUID());
}

/** A structured handler result with its body parsed. */
export interface ParsedResult {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Parses a handler's structured result. */
export function parseResult(result: APIGatewayProxyResultV2): ParsedResult {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    throw new Error('expected a structured result');
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body: unknown = JSON.parse(result.body ?? 'null');
  if (typeof body !== 'object' || body === null) throw new Error('expected a JSON object body');
  return { status: result.statusCode ?? 200, headers, body: body as Record<string, unknown> };
}

/** Checks that a result is the documented error body with the given status and `error_code`. */
export function expectErrorShape(result: ParsedResult): void {
  const { body, headers } = result;
  const keys = Object.keys(body).sort();
  if (
    keys.join(',') !== 'data,error,error_category,error_code,error_level,message,status_code' ||
    body.status_code !== result.status ||
    typeof body.error_code !== 'string' ||
    !body.error_code.startsWith(String(result.status)) ||
    typeof (body.data as { tid?: unknown }).tid !== 'string' ||
    headers.tid !== (body.data as { tid?: unknown }).tid
  ) {
    throw new Error(`not the documented error body: ${JSON.stringify(result)}`);
  }
}
