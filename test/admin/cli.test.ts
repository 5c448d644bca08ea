import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../lib/auth/authenticate';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { AUDIENCE, expectAuthenticationError, TEST_CONFIG } from '../auth/fixtures';

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

const TSX = resolve('node_modules/.bin/tsx');
const CLI = resolve('lib/admin/cli.ts');

interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** This file's table and the shared DynamoDB Local, as the per-file setup put them in the environment. */
function testEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}

/** Runs `tsx lib/admin/cli.ts …` as a child process, as `npm run admin -- …` does. */
function runAdmin(args: string[], env: NodeJS.ProcessEnv = testEnvironment()): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(TSX, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Parses a successful run's stdout. */
function json(result: RunResult): Record<string, unknown> {
  expect(result.stderr).not.toMatch(/^error:/m);
  expect(result.code).toBe(0);
  const value: unknown = JSON.parse(result.stdout);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('expected an object');
  }
  return { ...value };
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`expected a string, got ${JSON.stringify(value)}`);
  return value;
}

/** The error lines of a failed run: exactly one `error: …` line and no stack trace. */
function errorLine(result: RunResult): string {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/^\s+at /m);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

const store = new CredentialStore({
  client: createDocumentClient(),
  tableName: process.env.TABLE_NAME ?? '',
});

describe('admin CLI', () => {
  it('creates an app and credentials, mints a JWT that authenticates until revoked', {
    timeout: 90_000,
  }, async () => {
    const dir = temporaryDirectory('admin-cli-');

    // create-app
    const app = json(await runAdmin(['create-app', '--name', 'cli demo']));
    const appId = text(app.app_id);
    expect(app).toMatchObject({ app_id: expect.stringMatching(/^[0-9A-F]{32}$/), name: 'cli demo' });

    // create-credential JWT (private key printed once) and ST (token printed once)
    const jwt = json(
      await runAdmin([
        'create-credential',
        '--app',
        appId,
        '--type',
        'JWT-EC-ES256',
        '--description',
        'ci key',
        '--expires-in-days',
        '30',
      ]),
    );
    expect(jwt).toMatchObject({ app_id: appId, type: 'JWT-EC-ES256', description: 'ci key' });
    expect(text(jwt.secret)).toContain('BEGIN PUBLIC KEY');
    expect(text(jwt.secret_private)).toContain('BEGIN PRIVATE KEY');
    expect(Number(jwt.expires_at) - Number(jwt.created_at)).toBe(30 * 86_400);
    const keyFile = join(dir, 'jwt.pem');
    writeFileSync(keyFile, text(jwt.secret_private));

    const st = json(await runAdmin(['create-credential', '--app', appId, '--type', 'ST']));
    expect(text(st.token)).toMatch(new RegExp(`^st_${text(st.id)}_[A-Za-z0-9_-]{43}$`));

    // --private-key-out writes the key with mode 0600 instead of printing it
    const outFile = join(dir, 'out.pem');
    const written = json(
      await runAdmin([
        'create-credential',
        '--app',
        appId,
        '--type',
        'JWT-EC-ES256',
        '--private-key-out',
        outFile,
      ]),
    );
    expect(written).not.toHaveProperty('secret_private');
    expect(readFileSync(outFile, 'utf8')).toContain('BEGIN PRIVATE KEY');
    expect(statSync(outFile).mode & 0o777).toBe(0o600);

    // mint-jwt
    const minted = json(
      await runAdmin([
        'mint-jwt',
        '--app',
        appId,
        '--credential',
        text(jwt.id),
        '--private-key-file',
        keyFile,
        '--subject',
        'user-1',
        '--lifetime',
        '600',
      ]),
    );
    const token = text(minted.token);
    let clock = new Date();
    const authenticator = createAuthenticator({ config: TEST_CONFIG, credentials: store, now: () => clock });
    await expect(authenticator.authenticate(`Bearer ${token}`)).resolves.toEqual({
      appId,
      credentialId: jwt.id,
      tokenKind: 'JWT',
      subject: 'user-1',
    });
    await expect(authenticator.authenticate(`Bearer ${text(st.token)}`)).resolves.toMatchObject({ appId });

    // list-credentials: all three, without any secret material
    const listed = await runAdmin(['list-credentials', '--app', appId]);
    expect(listed.code).toBe(0);
    const views: unknown = JSON.parse(listed.stdout);
    // Credentials created within the same second are ordered by id, so compare as sets.
    expect(Array.isArray(views) && views.map((view: { id?: unknown }) => String(view.id)).sort()).toEqual(
      [text(jwt.id), text(st.id), text(written.id)].sort(),
    );
    expect(listed.stdout).not.toMatch(/PRIVATE|secret_hash|"token"/);

    // revoke-credential: refused once the authenticator's 30 s cache has passed
    const revoked = json(await runAdmin(['revoke-credential', '--credential', text(jwt.id)]));
    expect(typeof revoked.revoked_at).toBe('number');
    clock = new Date(clock.getTime() + 31_000);
    await expectAuthenticationError(authenticator.authenticate(`Bearer ${token}`), {
      message: 'The credential is revoked',
    });
    await expect(authenticator.authenticate(`Bearer ${text(st.token)}`)).resolves.toMatchObject({ appId });
  });

  it('reads the connection from --local <dataDir>/local-stack.json', { timeout: 30_000 }, async () => {
    const dir = temporaryDirectory('admin-local-');
    writeFileSync(
      join(dir, 'local-stack.json'),
      JSON.stringify({
        dynamodb_endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
        table_name: process.env.TABLE_NAME,
        audience: AUDIENCE,
        region: 'local',
      }),
    );
    // Nothing AWS-related in the environment: everything must come from the file.
    const { PATH, HOME } = process.env;

    const app = json(await runAdmin(['create-app', '--name', 'from local', '--local', dir], { PATH, HOME }));

    expect(await store.getApp(text(app.app_id))).toMatchObject({ name: 'from local' });
  });

  it('prints one error line and exits 1 for a bad option value', { timeout: 30_000 }, async () => {
    const line = errorLine(await runAdmin(['create-credential', '--app', 'A'.repeat(32), '--type', 'RSA']));

    expect(line).toContain("'RSA' is invalid");
  });

  it('prints one error line and exits 1 for an unknown option or a missing one', {
    timeout: 30_000,
  }, async () => {
    expect(errorLine(await runAdmin(['create-app', '--name', 'x', '--bogus']))).toContain(
      "unknown option '--bogus'",
    );
    expect(errorLine(await runAdmin(['revoke-credential']))).toContain("required option '--credential <id>'");
    expect(errorLine(await runAdmin(['mint-jwt', '--app', 'A'.repeat(32), '--lifetime', '-5']))).toContain(
      'positive',
    );
  });

  it('prints one error line and exits 1 for an unknown app', { timeout: 30_000 }, async () => {
    const appId = 'B'.repeat(32);

    const line = errorLine(await runAdmin(['create-credential', '--app', appId, '--type', 'ST']));

    expect(line).toBe(`error: No app with id ${appId}`);
  });

  it('refuses to mint without an audience', { timeout: 30_000 }, async () => {
    const { JWT_AUDIENCE: _unused, ...env } = process.env;
    const dir = temporaryDirectory('admin-mint-');
    writeFileSync(join(dir, 'key.pem'), 'unused');

    const line = errorLine(
      await runAdmin(
        [
          'mint-jwt',
          '--app',
          'A'.repeat(32),
          '--credential',
          'a'.repeat(32),
          '--private-key-file',
          join(dir, 'key.pem'),
        ],
        env,
      ),
    );

    expect(line).toContain('no audience');
  });
});
