import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorResponse, toServiceError } from '../../functions/http/error-body';
import { AuthenticationError, ERROR_CODES, ServiceError, StorageUnavailableError } from '../../lib/errors';
import { parseResult } from '../support/api-events';

describe('error body', () => {
  it('renders the documented fields, with the tid in data and in a header', () => {
    const result = parseResult(
      errorResponse(new ServiceError('invalidParameter', 'Query parameter "start" is required'), 'tid-1'),
    );
    expect(result.status).toBe(400);
    expect(result.headers.tid).toBe('tid-1');
    expect(result.body).toEqual({
      error_level: 'normal',
      error_category: 'client',
      error_code: '400101',
      message: 'Query parameter "start" is required',
      status_code: 400,
      error: 'invalid_parameter',
      data: { tid: 'tid-1' },
    });
  });

  it('never shows the message or details of a 5xx, and asks 503 callers to retry', () => {
    const internal = parseResult(
      errorResponse(
        new ServiceError('internalError', 'secret table name xyz', { details: { table: 'xyz' } }),
        't',
      ),
    );
    expect(JSON.stringify(internal.body)).not.toContain('xyz');
    const unavailable = parseResult(errorResponse(new StorageUnavailableError('down'), 't'));
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers['retry-after']).toBe('1');
  });

  it('challenges 401s per RFC 6750', () => {
    const missing = parseResult(errorResponse(new AuthenticationError('No token', { missing: true }), 't'));
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="model-engine-api"');
    const invalid = parseResult(errorResponse(new AuthenticationError('The token has expired'), 't'));
    expect(invalid.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('maps unknown throwables to 500 and middy HTTP errors to their 4xx', () => {
    expect(toServiceError(new TypeError('boom')).code).toBe('internalError');
    expect(toServiceError(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 })).code).toBe(
      'unsupportedMediaType',
    );
    expect(toServiceError(Object.assign(new Error('x'), { statusCode: 422 })).status).toBe(400);
  });

  it('is documented in the README: one row per code, same status and slug', () => {
    const readme = readFileSync('README.md', 'utf8');
    for (const definition of Object.values(ERROR_CODES)) {
      const code = `${definition.status}${definition.subCode}`;
      expect(readme, code).toMatch(
        new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${definition.status}\\s*\\|\\s*\`${definition.slug}\``),
      );
    }
  });
});
