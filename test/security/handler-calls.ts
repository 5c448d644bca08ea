/**
 * Calls the two exported Lambda handlers the way API Gateway does, and checks the documented error
 * responses, for the security suites.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { expect } from 'vitest';
import { handler as invokeHandler } from '../../functions/invoke-engine';
import { handler as usagesHandler } from '../../functions/list-usages';
import {
  apiEvent,
  expectErrorShape,
  lambdaContext,
  type ParsedResult,
  parseResult,
} from '../support/api-events';

/** Route key of Engine.Invoke. */
export const INVOKE_ROUTE = 'POST /v1/engines/{engine_id}';
/** Route key of Usages.List. */
export const USAGES_ROUTE = 'GET /v1/apps/{app_id}/usages';
/** The Japanese singer of the catalog. */
export const HIKARI = '5A22C6DFE641404096876E9928EA1294.hikari';
/** The English singer of the catalog. */
export const LEO = '5A22C6DFE641404096876E9928EA1294.leo';
/** The realm every `WWW-Authenticate` challenge names. */
export const REALM = 'model-engine-api';

/** A path segment as a client would percent-encode it (kept raw when it is not valid Unicode). */
function pathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A request to Engine.Invoke; `headers` are sent as given (no defaults are added). */
export interface InvokeCall {
  readonly engineId: string;
  readonly body?: string | undefined;
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string>;
  /** Marks the body as base64 (API Gateway does so for binary media types). */
  readonly isBase64Encoded?: boolean;
}

/** Sends an Engine.Invoke request through the exported handler. */
export async function callInvoke(call: InvokeCall): Promise<ParsedResult> {
  const event: APIGatewayProxyEventV2 = apiEvent({
    routeKey: INVOKE_ROUTE,
    path: `/v1/engines/${pathSegment(call.engineId)}`,
    pathParameters: { engine_id: call.engineId },
    headers: call.headers ?? {},
    ...(call.body === undefined ? {} : { body: call.body }),
    ...(call.query === undefined ? {} : { query: call.query }),
  });
  if (call.isBase64Encoded === true) event.isBase64Encoded = true;
  return parseResult(await invokeHandler(event, lambdaContext()));
}

/** A request to Usages.List; `headers` are sent as given. */
export interface UsagesCall {
  readonly appId: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
}

/** Sends a Usages.List request through the exported handler. */
export async function callUsages(call: UsagesCall): Promise<ParsedResult> {
  const event = apiEvent({
    routeKey: USAGES_ROUTE,
    path: `/v1/apps/${pathSegment(call.appId)}/usages`,
    pathParameters: { app_id: call.appId },
    headers: call.headers ?? {},
    ...(call.query === undefined ? {} : { query: call.query }),
  });
  return parseResult(await usagesHandler(event, lambdaContext()));
}

/** `{authorization}` for a raw header value, or no header at all for undefined. */
export function authorization(value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { authorization: value };
}

/**
 * Asserts the documented 401: the error body with `401101 invalid_token` and the RFC 6750 challenge
 * with `error="invalid_token"`, or, with `missing`, `401100 missing_token` and a challenge without an
 * error code (RFC 6750 §3.1). Also asserts that nothing of the token is echoed back.
 * @param token - the token that was sent, checked not to appear in the body or any header
 */
export function expectUnauthorized(
  result: ParsedResult,
  options: { missing?: boolean; token?: string } = {},
) {
  expect(result.status, JSON.stringify(result.body)).toBe(401);
  expectErrorShape(result);
  const challenge = result.headers['www-authenticate'];
  if (options.missing === true) {
    expect(result.body).toMatchObject({ error_code: '401100', error: 'missing_token' });
    expect(challenge).toBe(`Bearer realm="${REALM}"`);
  } else {
    expect(result.body).toMatchObject({ error_code: '401101', error: 'invalid_token' });
    expect(challenge).toMatch(new RegExp(`^Bearer realm="${REALM}", error="invalid_token"`));
    // A header value must stay on one line (no response splitting).
    expect(challenge).not.toMatch(/[\r\n]/);
  }
  expect(result.body).toMatchObject({ error_level: 'normal', error_category: 'client', status_code: 401 });
  if (options.token !== undefined && options.token.length >= 16) {
    const echoed = JSON.stringify(result);
    // The secret part of a token (its last 16 characters) never comes back.
    expect(echoed).not.toContain(options.token.slice(-16));
  }
}

/** Asserts the documented 403 `403100 forbidden` body. */
export function expectForbidden(result: ParsedResult): void {
  expect(result.status, JSON.stringify(result.body)).toBe(403);
  expectErrorShape(result);
  expect(result.body).toMatchObject({ error_code: '403100', error: 'forbidden', status_code: 403 });
  expect(result.headers['www-authenticate']).toBeUndefined();
}
