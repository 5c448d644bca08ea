/**
 * DynamoDB adapter for apps and credentials: the only module that reads or writes their items.
 *
 * Items are narrowed field by field when read, so a malformed item fails loudly (500) instead of
 * leaking half-typed data into authentication. Conditional-write failures come back as typed
 * results; any other SDK failure becomes {@link StorageUnavailableError} (503), never a 401.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type App,
  type Credential,
  type Es256PublicJwk,
  isAppId,
  isCredentialId,
  type JwtCredential,
  type ServiceTokenCredential,
} from '../auth/credential';
import { ServiceError, StorageUnavailableError } from '../errors';
import { GSI1_NAME, keys, TABLE_ATTRIBUTES } from './table-definition';

/** Item kinds written by this adapter (attribute `type`, as in the other stores). */
const ITEM_TYPE = { app: 'app', credential: 'credential' } as const;

/** Outcome of a conditional write. */
export type PutResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** `alreadyExists`: an item with this id exists (ids are never reused); `unknownApp`: the credential's app does not exist. */
      readonly reason: 'alreadyExists' | 'unknownApp';
    };

/** Outcome of {@link CredentialStore.revokeCredential}. */
export type RevokeResult =
  | { readonly outcome: 'revoked' | 'alreadyRevoked'; readonly credential: Credential }
  | { readonly outcome: 'notFound' };

type Item = Record<string, unknown>;

function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Reasons of a cancelled transaction, one per item (`ConditionalCheckFailed`, `None`, …). */
function cancellationCodes(error: unknown): string[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons: unknown = Reflect.get(error, 'CancellationReasons');
  if (!Array.isArray(reasons)) return [];
  return reasons.map((reason: unknown) => {
    const code: unknown =
      typeof reason === 'object' && reason !== null ? Reflect.get(reason, 'Code') : undefined;
    return typeof code === 'string' ? code : 'None';
  });
}

function unavailable(action: string, error: unknown): StorageUnavailableError {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new StorageUnavailableError(`The credential store could not ${action} (${detail})`, {
    cause: error,
  });
}

function malformed(item: Item, field: string): ServiceError {
  return new ServiceError(
    'internalError',
    `A stored app or credential item is malformed (field "${field}")`,
    {
      details: { pk: item[TABLE_ATTRIBUTES.partitionKey], field },
    },
  );
}

function stringField(item: Item, field: string): string {
  const value = item[field];
  if (typeof value !== 'string') throw malformed(item, field);
  return value;
}

function unixSecondsField(item: Item, field: string): number {
  const value = item[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw malformed(item, field);
  return value;
}

function optionalUnixSecondsField(item: Item, field: string): number | undefined {
  return item[field] === undefined ? undefined : unixSecondsField(item, field);
}

function nullableUnixSecondsField(item: Item, field: string): number | null {
  return item[field] === null || item[field] === undefined ? null : unixSecondsField(item, field);
}

function assertItemType(item: Item, expected: string): void {
  if (item.type !== expected) throw malformed(item, 'type');
}

function publicJwkField(item: Item, credentialId: string): Es256PublicJwk {
  const value = item.public_jwk;
  if (typeof value !== 'object' || value === null) throw malformed(item, 'public_jwk');
  const x: unknown = Reflect.get(value, 'x');
  const y: unknown = Reflect.get(value, 'y');
  const base64url = /^[A-Za-z0-9_-]{43}$/;
  if (
    Reflect.get(value, 'kty') !== 'EC' ||
    Reflect.get(value, 'crv') !== 'P-256' ||
    Reflect.get(value, 'alg') !== 'ES256' ||
    Reflect.get(value, 'use') !== 'sig' ||
    Reflect.get(value, 'kid') !== credentialId ||
    typeof x !== 'string' ||
    typeof y !== 'string' ||
    !base64url.test(x) ||
    !base64url.test(y)
  ) {
    throw malformed(item, 'public_jwk');
  }
  return { kty: 'EC', crv: 'P-256', x, y, alg: 'ES256', use: 'sig', kid: credentialId };
}

/**
 * Narrows an app item.
 * @throws ServiceError `internalError` when a field is missing or mistyped
 */
function toApp(item: Item): App {
  assertItemType(item, ITEM_TYPE.app);
  const appId = stringField(item, 'app_id');
  if (!isAppId(appId)) throw malformed(item, 'app_id');
  return { app_id: appId, name: stringField(item, 'name'), created_at: unixSecondsField(item, 'created_at') };
}

/**
 * Narrows a credential item.
 * @throws ServiceError `internalError` when a field is missing or mistyped
 */
function toCredential(item: Item): Credential {
  assertItemType(item, ITEM_TYPE.credential);
  const id = stringField(item, 'credential_id');
  if (!isCredentialId(id)) throw malformed(item, 'credential_id');
  const appId = stringField(item, 'app_id');
  if (!isAppId(appId)) throw malformed(item, 'app_id');
  const revokedAt = optionalUnixSecondsField(item, 'revoked_at');
  const common = {
    app_id: appId,
    id,
    description: stringField(item, 'description'),
    created_at: unixSecondsField(item, 'created_at'),
    expires_at: nullableUnixSecondsField(item, 'expires_at'),
    ...(revokedAt === undefined ? {} : { revoked_at: revokedAt }),
  };
  const type = item.credential_type;
  if (type === 'JWT-EC-ES256') {
    const credential: JwtCredential = { ...common, type, public_jwk: publicJwkField(item, id) };
    return credential;
  }
  if (type === 'ST') {
    const secretHash = stringField(item, 'secret_hash');
    if (!/^[A-Za-z0-9_-]{43}$/.test(secretHash)) throw malformed(item, 'secret_hash');
    const credential: ServiceTokenCredential = { ...common, type, secret_hash: secretHash };
    return credential;
  }
  throw malformed(item, 'credential_type');
}

function credentialItem(credential: Credential): Item {
  const createdAtIso = new Date(credential.created_at * 1000).toISOString();
  const material =
    credential.type === 'JWT-EC-ES256'
      ? { public_jwk: { ...credential.public_jwk } }
      : { secret_hash: credential.secret_hash };
  return {
    ...keys.credential(credential.id),
    ...keys.credentialByApp(credential.app_id, createdAtIso, credential.id),
    type: ITEM_TYPE.credential,
    credential_id: credential.id,
    app_id: credential.app_id,
    credential_type: credential.type,
    description: credential.description,
    created_at: credential.created_at,
    expires_at: credential.expires_at,
    ...(credential.revoked_at === undefined ? {} : { revoked_at: credential.revoked_at }),
    ...material,
  };
}

/** Reads and writes app and credential items in the service table. */
export class CredentialStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;

  /**
   * @param deps.client - document client (built once per container or CLI run)
   * @param deps.tableName - the service table
   */
  constructor(deps: { client: DynamoDBDocumentClient; tableName: string }) {
    this.#client = deps.client;
    this.#tableName = deps.tableName;
  }

  /**
   * Writes a new app unless one with the same id exists (the existing item is left untouched).
   * @returns `{ok: false, reason: 'alreadyExists'}` when the id is taken
   * @throws StorageUnavailableError when DynamoDB fails
   */
  async putApp(app: App): Promise<PutResult> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: { ...keys.app(app.app_id), type: ITEM_TYPE.app, ...app },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': TABLE_ATTRIBUTES.partitionKey },
        }),
      );
      return { ok: true };
    } catch (error) {
      if (isConditionalCheckFailure(error)) return { ok: false, reason: 'alreadyExists' };
      throw unavailable('write the app', error);
    }
  }

  /**
   * Reads an app.
   * @returns undefined when there is no app with this id
   * @throws StorageUnavailableError when DynamoDB fails; ServiceError `internalError` for a malformed item
   */
  async getApp(appId: string): Promise<App | undefined> {
    const item = await this.#get(keys.app(appId), 'read the app');
    return item === undefined ? undefined : toApp(item);
  }

  /**
   * Writes a new credential, in one transaction with a check that its app exists, and only if no
   * credential with this id exists (a `kid` is never reused for new key material).
   * @returns `{ok: false, reason}` with `unknownApp` or `alreadyExists`
   * @throws StorageUnavailableError when DynamoDB fails
   */
  async putCredential(credential: Credential): Promise<PutResult> {
    const names = { '#pk': TABLE_ATTRIBUTES.partitionKey };
    try {
      await this.#client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.#tableName,
                Key: keys.app(credential.app_id),
                ConditionExpression: 'attribute_exists(#pk)',
                ExpressionAttributeNames: names,
              },
            },
            {
              Put: {
                TableName: this.#tableName,
                Item: credentialItem(credential),
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: names,
              },
            },
          ],
        }),
      );
      return { ok: true };
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'unknownApp' };
      if (codes?.[1] === 'ConditionalCheckFailed') return { ok: false, reason: 'alreadyExists' };
      throw unavailable('write the credential', error);
    }
  }

  /**
   * Reads a credential with a strongly consistent read, so a credential works as soon as it is
   * created and a revocation is seen by the next uncached read.
   * @returns undefined when there is no credential with this id
   * @throws StorageUnavailableError when DynamoDB fails; ServiceError `internalError` for a malformed item
   */
  async getCredential(credentialId: string): Promise<Credential | undefined> {
    const item = await this.#get(keys.credential(credentialId), 'read the credential');
    return item === undefined ? undefined : toCredential(item);
  }

  /**
   * Lists an app's credentials, oldest first (by creation second, then id), by querying the `gsi1`
   * index page by page.
   * @param options.pageSize - items per Query page (default 100)
   * @throws StorageUnavailableError when DynamoDB fails; ServiceError `internalError` for a malformed item
   */
  async listCredentials(appId: string, options: { pageSize?: number } = {}): Promise<Credential[]> {
    const credentials: Credential[] = [];
    try {
      const pages = paginateQuery(
        { client: this.#client, pageSize: options.pageSize ?? 100 },
        {
          TableName: this.#tableName,
          IndexName: GSI1_NAME,
          KeyConditionExpression: '#gpk = :gpk AND begins_with(#gsk, :cred)',
          ExpressionAttributeNames: {
            '#gpk': TABLE_ATTRIBUTES.gsi1PartitionKey,
            '#gsk': TABLE_ATTRIBUTES.gsi1SortKey,
          },
          ExpressionAttributeValues: { ':gpk': keys.credentialsOfAppPartition(appId), ':cred': 'CRED#' },
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) credentials.push(toCredential(item));
      }
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw unavailable('list the credentials', error);
    }
    return credentials;
  }

  /**
   * Marks a credential revoked at `at` (Unix seconds). Revoking twice keeps the first time.
   * @returns the revoked credential, or `notFound`
   * @throws StorageUnavailableError when DynamoDB fails
   */
  async revokeCredential(credentialId: string, at: Date): Promise<RevokeResult> {
    try {
      const result = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: keys.credential(credentialId),
          UpdateExpression: 'SET revoked_at = :at',
          ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(revoked_at)',
          ExpressionAttributeNames: { '#pk': TABLE_ATTRIBUTES.partitionKey },
          ExpressionAttributeValues: { ':at': Math.floor(at.getTime() / 1000) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      if (result.Attributes === undefined) {
        // ReturnValues ALL_NEW always returns the item; without it there is nothing to show.
        throw new ServiceError('internalError', 'DynamoDB returned no item for the revoked credential');
      }
      return { outcome: 'revoked', credential: toCredential(result.Attributes) };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) {
        if (error instanceof ServiceError) throw error;
        throw unavailable('revoke the credential', error);
      }
    }
    // The condition failed: either there is no such credential or it was revoked before.
    const existing = await this.getCredential(credentialId);
    return existing === undefined
      ? { outcome: 'notFound' }
      : { outcome: 'alreadyRevoked', credential: existing };
  }

  async #get(key: { pk: string; sk: string }, action: string): Promise<Item | undefined> {
    try {
      const result = await this.#client.send(
        new GetCommand({ TableName: this.#tableName, Key: key, ConsistentRead: true }),
      );
      return result.Item;
    } catch (error) {
      throw unavailable(action, error);
    }
  }
}
