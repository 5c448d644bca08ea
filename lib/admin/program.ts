/**
 * The operator CLI's commands (api-notes B10): create apps and credentials, list and revoke
 * credentials, and mint a JWT as a client would. JSON on stdout; one-line errors on stderr.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CREDENTIAL_TYPES, isAppId, isCredentialId, toUnixSeconds } from '../auth/credential';
import {
  createApp,
  createJwtCredential,
  createServiceTokenCredential,
  generateEs256KeyPair,
  listCredentials,
  mintJwt,
  revokeCredential,
} from '../auth/credentials';
import { DEFAULT_JWT_LIFETIME_SECONDS } from '../auth/mint-jwt';
import { ConflictError, ServiceError } from '../errors';
import { CredentialStore } from '../storage/credential-store';
import { createDocumentClient } from '../storage/dynamodb-client';
import { type CliEnvironment, CliUsageError, type GlobalOptions, resolveConnection } from './connection';

/** Where the CLI writes. */
export interface CliOutput {
  /** Receives results (JSON). */
  readonly stdout: (text: string) => void;
  /** Receives errors and help on errors. */
  readonly stderr: (text: string) => void;
}

/** Names of the commands, in the order of the help text. */
export const COMMANDS = [
  'create-app',
  'create-credential',
  'list-credentials',
  'revoke-credential',
  'mint-jwt',
] as const;

type Options = Record<string, unknown>;

/** What `create-credential` passes to the domain, whatever the type. */
interface NewCredentialOptions {
  readonly appId: string;
  readonly now: Date;
  readonly description: string | undefined;
  readonly expiresAt: Date | undefined;
}

function stringOption(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

function requiredString(options: Options, name: string): string {
  const value = stringOption(options, name);
  // Commander enforces mandatory options; this narrows the type.
  if (value === undefined) throw new CliUsageError(`option --${name} is required`);
  return value;
}

function numberOption(options: Options, name: string): number | undefined {
  const value = options[name];
  return typeof value === 'number' ? value : undefined;
}

function globalOptions(options: Options): GlobalOptions {
  const local = options.local;
  return {
    table: stringOption(options, 'table'),
    endpoint: stringOption(options, 'endpoint'),
    audience: stringOption(options, 'audience'),
    local: local === true || typeof local === 'string' ? local : undefined,
  };
}

function positiveNumber(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError('must be a positive number.');
  }
  return value;
}

function positiveInteger(raw: string): number {
  const value = positiveNumber(raw);
  if (!Number.isInteger(value)) throw new InvalidArgumentError('must be a positive whole number.');
  return value;
}

function readTextFile(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error ? Reflect.get(error, 'code') : undefined;
    throw new CliUsageError(`cannot read ${option} ${path}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}

function printJson(output: CliOutput, value: unknown): void {
  output.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Opens the credential store for one command and closes the client afterwards, so the process
 * can exit.
 */
async function withStore<T>(
  options: Options,
  env: CliEnvironment,
  run: (store: CredentialStore) => Promise<T>,
): Promise<T> {
  const connection = resolveConnection(globalOptions(options), env);
  if (connection.tableName === undefined) {
    throw new CliUsageError('no table: pass --table <name>, use --local, or set TABLE_NAME');
  }
  const client = createDocumentClient({
    ...(connection.endpoint === undefined ? {} : { endpoint: connection.endpoint }),
    ...(connection.region === undefined ? {} : { region: connection.region }),
    ...(connection.credentials === undefined ? {} : { credentials: connection.credentials }),
    // An operator waiting on a dead endpoint wants a prompt error, not the SDK's retries.
    maxAttempts: 2,
  });
  try {
    return await run(new CredentialStore({ client, tableName: connection.tableName }));
  } finally {
    client.destroy();
  }
}

/**
 * Builds the command tree.
 * @param env - environment defaults (`TABLE_NAME`, `AWS_ENDPOINT_URL_DYNAMODB`, `JWT_AUDIENCE`, `AWS_REGION`)
 * @param output - where results and errors go
 * @param now - clock (default the system clock)
 */
export function buildProgram(
  env: CliEnvironment,
  output: CliOutput,
  now: () => Date = () => new Date(),
): Command {
  const program = new Command('admin')
    .description('Operator tool for the apps and credentials of the model-engine API. Prints JSON.')
    .option('--table <name>', 'DynamoDB table (default: env TABLE_NAME)')
    .option('--endpoint <url>', 'DynamoDB endpoint (default: env AWS_ENDPOINT_URL_DYNAMODB; none = AWS)')
    .option('--audience <aud>', 'JWT audience for mint-jwt (default: env JWT_AUDIENCE)')
    .option(
      '--local [dataDir]',
      `use the local stack described by <dataDir>/local-stack.json (default dir .data); put it after the command`,
    )
    .showSuggestionAfterError(false)
    .exitOverride()
    .configureOutput({ writeOut: output.stdout, writeErr: output.stderr });

  program
    .command('create-app')
    .description('create an app and print it')
    .requiredOption('--name <name>', 'display name')
    .action(async (options: Options, command: Command) => {
      const all: Options = command.optsWithGlobals();
      const app = await withStore(all, env, (store) =>
        createApp(store, { name: requiredString(options, 'name'), now: now() }),
      );
      printJson(output, app);
    });

  program
    .command('create-credential')
    .description('create a credential; prints the private key (JWT) or the token (ST) once')
    .requiredOption('--app <id>', 'app id (32 uppercase hex)')
    .addOption(new Option('--type <type>', 'credential type').choices(CREDENTIAL_TYPES).makeOptionMandatory())
    .option('--description <text>', 'note for operators')
    .option('--expires-in-days <n>', 'expire after this many days (default: never)', positiveNumber)
    .addOption(
      new Option(
        '--public-key-file <pem>',
        "JWT: the client's P-256 public key; no private key is generated",
      ).conflicts('privateKeyOut'),
    )
    .option('--private-key-out <file>', 'JWT: write the generated private key to this new file (mode 0600)')
    .action(async (options: Options, command: Command) => {
      const all: Options = command.optsWithGlobals();
      const type = requiredString(options, 'type');
      const appId = requiredString(options, 'app');
      const publicKeyFile = stringOption(options, 'publicKeyFile');
      const privateKeyOut = stringOption(options, 'privateKeyOut');
      if (type === 'ST' && (publicKeyFile !== undefined || privateKeyOut !== undefined)) {
        throw new CliUsageError(
          '--public-key-file and --private-key-out apply to JWT-EC-ES256 credentials only',
        );
      }
      // Read before connecting, so a wrong path fails before anything is written.
      const publicKeyPem =
        publicKeyFile === undefined ? undefined : readTextFile(publicKeyFile, '--public-key-file');
      const createdAt = now();
      const days = numberOption(options, 'expiresInDays');
      const input: NewCredentialOptions = {
        appId,
        now: createdAt,
        description: stringOption(options, 'description'),
        expiresAt: days === undefined ? undefined : new Date(createdAt.getTime() + days * 86_400_000),
      };
      const result = await withStore(all, env, async (store): Promise<Record<string, unknown>> => {
        if (type === 'ST') {
          const created = await createServiceTokenCredential(store, input);
          return { ...created.credential, token: created.token };
        }
        if (publicKeyPem !== undefined) {
          return { ...(await createJwtCredential(store, { ...input, publicKeyPem })).credential };
        }
        if (privateKeyOut !== undefined) return createWithPrivateKeyFile(store, input, privateKeyOut);
        const created = await createJwtCredential(store, input);
        return { ...created.credential, secret_private: created.privateKeyPem };
      });
      printJson(output, result);
    });

  program
    .command('list-credentials')
    .description("list an app's credentials, oldest first")
    .requiredOption('--app <id>', 'app id')
    .action(async (options: Options, command: Command) => {
      const all: Options = command.optsWithGlobals();
      const credentials = await withStore(all, env, (store) =>
        listCredentials(store, requiredString(options, 'app')),
      );
      printJson(output, credentials);
    });

  program
    .command('revoke-credential')
    .description('revoke a credential (services notice within 30 s)')
    .requiredOption('--credential <id>', 'credential id (32 lowercase hex)')
    .action(async (options: Options, command: Command) => {
      const all: Options = command.optsWithGlobals();
      const credential = await withStore(all, env, (store) =>
        revokeCredential(store, requiredString(options, 'credential'), now()),
      );
      printJson(output, credential);
    });

  program
    .command('mint-jwt')
    .description('sign a JWT with a credential private key, as a client would (uses the global --audience)')
    .requiredOption('--app <id>', 'app id, becomes iss')
    .requiredOption('--credential <kid>', 'credential id, becomes kid')
    .requiredOption('--private-key-file <pem>', "the credential's private key")
    .option('--subject <s>', 'sub claim (default: the app id)')
    .option('--lifetime <seconds>', 'exp − iat in seconds', positiveInteger, DEFAULT_JWT_LIFETIME_SECONDS)
    .action((options: Options, command: Command) => {
      const all: Options = command.optsWithGlobals();
      const appId = requiredString(options, 'app');
      const credentialId = requiredString(options, 'credential');
      if (!isAppId(appId)) throw new CliUsageError('--app must be 32 uppercase hex digits');
      if (!isCredentialId(credentialId)) {
        throw new CliUsageError('--credential must be 32 lowercase hex digits');
      }
      const audience = resolveConnection(globalOptions(all), env).audience;
      if (audience === undefined) {
        throw new CliUsageError('no audience: pass --audience, use --local, or set JWT_AUDIENCE');
      }
      const lifetimeSeconds = numberOption(options, 'lifetime') ?? DEFAULT_JWT_LIFETIME_SECONDS;
      const issuedAt = now();
      const token = mintJwt({
        appId,
        credentialId,
        privateKeyPem: readTextFile(requiredString(options, 'privateKeyFile'), '--private-key-file'),
        audience,
        lifetimeSeconds,
        now: issuedAt,
        subject: stringOption(options, 'subject'),
      });
      printJson(output, { token, expires_at: toUnixSeconds(issuedAt) + lifetimeSeconds });
    });

  return program;
}

/**
 * Generates the key pair here so the private key is on disk before the credential exists: a
 * credential whose private key was lost would be useless, and the file is removed again if the
 * credential cannot be created.
 */
async function createWithPrivateKeyFile(
  store: CredentialStore,
  input: NewCredentialOptions,
  path: string,
): Promise<Record<string, unknown>> {
  const { publicKeyPem, privateKeyPem } = generateEs256KeyPair();
  try {
    // 'wx' refuses to overwrite: an existing file may hold another credential's key.
    writeFileSync(path, privateKeyPem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = error instanceof Error ? Reflect.get(error, 'code') : undefined;
    throw new CliUsageError(
      code === 'EEXIST'
        ? `--private-key-out ${path} exists already; choose a new file`
        : `cannot write --private-key-out ${path}${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
  try {
    const created = await createJwtCredential(store, { ...input, publicKeyPem });
    return { ...created.credential, secret_private_file: path };
  } catch (error) {
    unlinkSync(path);
    throw error;
  }
}

/**
 * `--local` takes an optional value, so `--local create-app …` would read the command name as the
 * data directory. Moving a bare `--local` that precedes a command name to the end keeps that
 * spelling working.
 */
export function normaliseArguments(args: readonly string[]): string[] {
  const index = args.indexOf('--local');
  const next = args[index + 1];
  if (index < 0 || next === undefined || !COMMANDS.some((name) => name === next)) return [...args];
  return [...args.slice(0, index), ...args.slice(index + 1), '--local'];
}

/** One line for an error: no stack traces for anything the operator can fix. */
function describeError(error: unknown): string {
  if (error instanceof CliUsageError || error instanceof ServiceError || error instanceof ConflictError) {
    return error.message;
  }
  if (error instanceof Error) return `unexpected ${error.name}: ${error.message}`;
  return `unexpected failure: ${String(error)}`;
}

/**
 * Runs the CLI.
 * @param args - the arguments after the script name
 * @returns the process exit code: 0 on success, 1 on any error (printed as one line on stderr)
 */
export async function runCli(
  args: readonly string[],
  env: CliEnvironment,
  output: CliOutput,
  now?: () => Date,
): Promise<number> {
  const program = buildProgram(env, output, now);
  try {
    await program.parseAsync(normaliseArguments(args), { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its own one-line message (or the help) already.
      return error.exitCode === 0 ? 0 : 1;
    }
    output.stderr(`error: ${describeError(error).replaceAll('\n', ' ')}\n`);
    return 1;
  }
}
