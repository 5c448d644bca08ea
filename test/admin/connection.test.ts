import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliUsageError, resolveConnection } from '../../lib/admin/connection';
import { normaliseArguments } from '../../lib/admin/program';

const temporaryDirectories: string[] = [];

/** A fresh directory under the OS temp dir, removed after this file's tests. */
function temporaryDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporaryDirectories.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of temporaryDirectories) rmSync(dir, { recursive: true, force: true });
});

function localStackDir(content: string): string {
  const dir = temporaryDirectory('admin-connection-');
  writeFileSync(join(dir, 'local-stack.json'), content);
  return dir;
}

const LOCAL_STACK = JSON.stringify({
  dynamodb_endpoint: 'http://127.0.0.1:8000',
  table_name: 'local-table',
  audience: 'api.local',
  region: 'local',
});

describe('resolveConnection', () => {
  it('falls back to the environment, and to real AWS when no endpoint is set', () => {
    const connection = resolveConnection({}, { TABLE_NAME: 'env-table', JWT_AUDIENCE: 'api.env' });

    expect(connection).toEqual({
      tableName: 'env-table',
      endpoint: undefined,
      region: undefined,
      credentials: undefined,
      audience: 'api.env',
    });
  });

  it('prefers options over the environment and gives an endpoint a region', () => {
    const connection = resolveConnection(
      { table: 'opt-table', endpoint: 'http://localhost:1234', audience: 'api.opt' },
      { TABLE_NAME: 'env-table', AWS_ENDPOINT_URL_DYNAMODB: 'http://env:1', JWT_AUDIENCE: 'api.env' },
    );

    expect(connection).toMatchObject({
      tableName: 'opt-table',
      endpoint: 'http://localhost:1234',
      region: 'local',
      audience: 'api.opt',
    });
  });

  it('reads local-stack.json with --local and uses fake credentials, ignoring the environment', () => {
    const dir = localStackDir(LOCAL_STACK);

    const connection = resolveConnection(
      { local: dir },
      { TABLE_NAME: 'env-table', JWT_AUDIENCE: 'api.env' },
    );

    expect(connection).toEqual({
      tableName: 'local-table',
      endpoint: 'http://127.0.0.1:8000',
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      audience: 'api.local',
    });
    expect(resolveConnection({ local: dir, table: 'explicit' }, {}).tableName).toBe('explicit');
  });

  it('explains a missing or malformed local-stack.json', () => {
    const empty = temporaryDirectory('admin-connection-');

    expect(() => resolveConnection({ local: empty }, {})).toThrow(CliUsageError);
    expect(() => resolveConnection({ local: empty }, {})).toThrow(/npm start/);
    expect(() => resolveConnection({ local: localStackDir('{') }, {})).toThrow(/not valid JSON/);
    expect(() => resolveConnection({ local: localStackDir('{"table_name":"t"}') }, {})).toThrow(
      /"dynamodb_endpoint"/,
    );
  });
});

describe('normaliseArguments', () => {
  it('moves a bare --local before a command name to the end', () => {
    expect(normaliseArguments(['--local', 'create-app', '--name', 'x'])).toEqual([
      'create-app',
      '--name',
      'x',
      '--local',
    ]);
  });

  it('keeps --local <dir> and every other spelling as given', () => {
    expect(normaliseArguments(['--local', 'data', 'create-app'])).toEqual(['--local', 'data', 'create-app']);
    expect(normaliseArguments(['create-app', '--local'])).toEqual(['create-app', '--local']);
    expect(normaliseArguments(['list-credentials', '--app', 'X'])).toEqual([
      'list-credentials',
      '--app',
      'X',
    ]);
  });
});
