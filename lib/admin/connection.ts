/**
 * Where the operator CLI connects: table, DynamoDB endpoint and JWT audience, from its options,
 * the local stack's `local-stack.json`, or the environment, in that order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A mistake of the operator (bad option, missing file); printed as one line, exit code 1. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** The environment variables the CLI falls back to (read only by the entry point). */
export interface CliEnvironment {
  readonly TABLE_NAME?: string | undefined;
  readonly AWS_ENDPOINT_URL_DYNAMODB?: string | undefined;
  readonly JWT_AUDIENCE?: string | undefined;
  readonly AWS_REGION?: string | undefined;
}

/** The global options as given on the command line. */
export interface GlobalOptions {
  readonly table?: string | undefined;
  readonly endpoint?: string | undefined;
  readonly audience?: string | undefined;
  /** `--local` alone = true (default data dir), `--local <dir>` = the dir. */
  readonly local?: string | true | undefined;
}

/** `<dataDir>/local-stack.json`, written by `npm start`. */
export interface LocalStackFile {
  readonly dynamodb_endpoint: string;
  readonly table_name: string;
  readonly audience: string;
  readonly region: string;
}

/** Resolved connection settings. */
export interface Connection {
  /** Undefined when neither `--table`, `--local` nor `TABLE_NAME` names one. */
  readonly tableName: string | undefined;
  /** DynamoDB endpoint; undefined = real AWS. */
  readonly endpoint: string | undefined;
  /** Region; undefined = the SDK's own chain (`AWS_REGION`, profile). */
  readonly region: string | undefined;
  /** Fixed credentials for DynamoDB Local; undefined = the SDK's credential chain. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  /** Expected JWT audience, for `mint-jwt`. */
  readonly audience: string | undefined;
}

/** Data directory of the local stack when `--local` has no value. */
export const DEFAULT_LOCAL_DATA_DIR = '.data';

/** DynamoDB Local accepts any alphanumeric keys; these keep the SDK from looking for real ones. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * Reads and checks `<dataDir>/local-stack.json`.
 * @throws CliUsageError when the file is missing or malformed
 */
export function readLocalStackFile(dataDir: string): LocalStackFile {
  const path = join(dataDir, 'local-stack.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'it is not valid JSON' : 'it cannot be read';
    throw new CliUsageError(
      `No usable local stack at ${path}: ${reason} (start the local stack with \`npm start\`)`,
    );
  }
  const field = (name: keyof LocalStackFile): string => {
    const value: unknown =
      typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, name) : undefined;
    if (typeof value !== 'string' || value === '') {
      throw new CliUsageError(`${path} has no "${name}" string; restart the local stack with \`npm start\``);
    }
    return value;
  };
  return {
    dynamodb_endpoint: field('dynamodb_endpoint'),
    table_name: field('table_name'),
    audience: field('audience'),
    region: field('region'),
  };
}

/**
 * Resolves the connection: explicit options first, then `local-stack.json` (with `--local`),
 * then the environment. With `--local`, fixed fake credentials are used; with any other endpoint
 * the region defaults to `AWS_REGION`, else `local`.
 * @throws CliUsageError when `--local` names no usable local stack
 */
export function resolveConnection(options: GlobalOptions, env: CliEnvironment): Connection {
  if (options.local !== undefined) {
    const local = readLocalStackFile(options.local === true ? DEFAULT_LOCAL_DATA_DIR : options.local);
    return {
      tableName: options.table ?? local.table_name,
      endpoint: options.endpoint ?? local.dynamodb_endpoint,
      region: local.region,
      credentials: LOCAL_CREDENTIALS,
      audience: options.audience ?? local.audience,
    };
  }
  const endpoint = options.endpoint ?? nonEmpty(env.AWS_ENDPOINT_URL_DYNAMODB);
  return {
    tableName: options.table ?? nonEmpty(env.TABLE_NAME),
    endpoint,
    // An endpoint means DynamoDB Local, where any region works but the SDK still insists on one.
    region: endpoint === undefined ? undefined : (nonEmpty(env.AWS_REGION) ?? 'local'),
    credentials: undefined,
    audience: options.audience ?? nonEmpty(env.JWT_AUDIENCE),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
