/**
 * Maps any thrown value to the one documented error body (api-notes A, B7). The only place where
 * errors become HTTP.
 */
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { ERROR_CODES, type ErrorCodeDefinition, ServiceError } from '../../lib/errors';

/** The documented error body. */
export interface ErrorBody {
  readonly error_level: string;
  readonly error_category: string;
  readonly error_code: string;
  readonly message: string;
  readonly status_code: number;
  readonly error: string;
  readonly data: Readonly<Record<string, unknown>> & { readonly tid: string };
}

/** Realm named in `WWW-Authenticate` challenges. */
export const AUTH_REALM = 'model-engine-api';

/**
 * Turns an error into a {@link ServiceError}: domain errors pass through; HTTP errors raised by
 * middy middleware keep their 4xx meaning; anything else is an internal error.
 */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const status =
    typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
  if (status === 413) return new ServiceError('requestTooLarge', 'The request body is too large');
  if (status === 415) {
    return new ServiceError(
      'unsupportedMediaType',
      'Send the body as JSON with "Content-Type: application/json"',
    );
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ServiceError('invalidRequest', 'The request is malformed');
  }
  return new ServiceError('internalError', 'An internal error occurred; report the tid to the operator', {
    cause: error,
  });
}

/**
 * A header-safe `error_description`: RFC 6750 §3 allows only visible ASCII except `"` and `\`
 * there, and Node refuses other characters in headers. Others become `?`.
 */
function quotedStringValue(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?');
}

/**
 * The response for an error. 5xx bodies carry a generic message (the cause is logged, never shown).
 * @param tid - tracking id, returned in `data.tid` and the `tid` header
 */
export function errorResponse(
  error: ServiceError,
  tid: string,
): APIGatewayProxyResultV2 & { statusCode: number } {
  const definition: ErrorCodeDefinition = ERROR_CODES[error.code];
  const message = error.expose ? error.message : ERROR_CODES[error.code].meaning;
  const body: ErrorBody = {
    error_level: definition.level,
    error_category: definition.category,
    error_code: `${definition.status}${definition.subCode}`,
    message,
    status_code: definition.status,
    error: definition.slug,
    data: { ...(error.expose ? error.details : {}), tid },
  };
  const headers: Record<string, string> = { 'content-type': 'application/json', tid };
  if (definition.status === 401) {
    // RFC 6750 §3.1: no error code when the request carried no credentials at all.
    headers['www-authenticate'] =
      error.code === 'missingToken'
        ? `Bearer realm="${AUTH_REALM}"`
        : `Bearer realm="${AUTH_REALM}", error="invalid_token", error_description="${quotedStringValue(message)}"`;
  }
  const retryAfter = error.retryAfterSeconds ?? (definition.status === 503 ? 1 : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfter)));
  return { statusCode: definition.status, headers, body: JSON.stringify(body) };
}
