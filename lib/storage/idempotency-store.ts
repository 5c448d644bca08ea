/**
 * DynamoDB adapter for idempotency keys: the lock taken before an engine runs, the stored response
 * of a completed run, and the completion write that joins the metering transaction.
 *
 * One item per (app, key hash), `IDEMP#<appId>#<sha256(key)>` / `IDEMP`:
 *
 * | attribute          | when        | meaning                                                        |
 * |--------------------|-------------|----------------------------------------------------------------|
 * | `status`           | always      | `IN_PROGRESS` or `COMPLETED`                                   |
 * | `request_hash`     | always      | SHA-256 hex of the canonical request                           |
 * | `lock_token`       | always      | random token of the run that holds (or held) the lock          |
 * | `lock_expires_at`  | always      | Unix seconds; a lock whose time has passed may be taken over (0 = released) |
 * | `ttl`              | always      | Unix seconds after which the key is forgotten (DynamoDB TTL)   |
 * | `execution_uuid`   | COMPLETED   | uuid of the metered execution                                  |
 * | `completed_at`     | COMPLETED   | ISO timestamp                                                  |
 * | `response_body`    | COMPLETED   | the response JSON, when stored inline                          |
 * | `result_pointer`   | COMPLETED   | where the result store keeps the response JSON, otherwise      |
 *
 * Neither DynamoDB Local nor DynamoDB deletes expired items on time, so expiry is also checked in
 * the lock condition and by readers.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ServiceError, StorageUnavailableError } from '../errors';
import { keys, TABLE_ATTRIBUTES } from './table-definition';

/** Where a completed response is kept: in the item, or in the result store (large responses). */
export type StoredResponse =
  | { readonly kind: 'inline' /** the response JSON text */; readonly body: string }
  | { readonly kind: 'pointer' /** a {@link ResultStore} pointer */; readonly pointer: string };

/** The state of one idempotency key, as read. Times are Unix seconds. */
export type IdempotencyRecord =
  | {
      readonly status: 'IN_PROGRESS';
      readonly requestHash: string;
      readonly lockToken: string;
      /** The lock is held while `now < lockExpiresAt`; 0 once released. */
      readonly lockExpiresAt: number;
      readonly expiresAt: number;
    }
  | {
      readonly status: 'COMPLETED';
      readonly requestHash: string;
      readonly executionUuid: string;
      readonly response: StoredResponse;
      readonly expiresAt: number;
    };

/** A lock to take. Times are Unix seconds. */
export interface LockRequest {
  readonly appId: string;
  /** SHA-256 hex of the `Idempotency-Key`. */
  readonly keyHash: string;
  readonly requestHash: string;
  /** Random token that identifies this run in later conditional writes. */
  readonly lockToken: string;
  /** The current time: an existing lock or key older than this can be replaced. */
  readonly now: number;
  readonly lockExpiresAt: number;
  /** When DynamoDB TTL may remove the item. */
  readonly expiresAt: number;
}

/** The completion of a locked key, written inside the metering transaction. */
export interface IdempotencyCompletion {
  readonly appId: string;
  readonly keyHash: string;
  /** The lock token the run holds; the write fails when another run took the key over. */
  readonly lockToken: string;
  readonly executionUuid: string;
  readonly completedAt: Date;
  readonly response: StoredResponse;
  /** Unix seconds after which the key is forgotten. */
  readonly expiresAt: number;
}

/** Outcome of {@link IdempotencyStore.tryLock}. */
export type LockOutcome = 'acquired' | 'held';

/** One element of a `TransactWriteItems` request (document client form). */
export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const STATUS = { inProgress: 'IN_PROGRESS', completed: 'COMPLETED' } as const;

/** Aliases for every attribute name used in expressions (`status` and `ttl` are reserved words). */
const NAMES = {
  '#pk': TABLE_ATTRIBUTES.partitionKey,
  '#status': 'status',
  '#token': 'lock_token',
  '#lockExpires': 'lock_expires_at',
  '#ttl': TABLE_ATTRIBUTES.ttl,
} as const;

type Item = Record<string, unknown>;

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function unavailable(action: string, error: unknown): StorageUnavailableError {
  return new StorageUnavailableError(
    `The idempotency store could not ${action} (${errorName(error) ?? String(error)})`,
    { cause: error },
  );
}

/** Mistakes of ours (bad request, missing table, missing grant) are 500s, not outages. */
function storageError(action: string, error: unknown): ServiceError {
  const name = errorName(error);
  if (
    name === 'ValidationException' ||
    name === 'ResourceNotFoundException' ||
    name === 'AccessDeniedException'
  ) {
    return new ServiceError('internalError', `The idempotency store could not ${action}: ${name}`, {
      cause: error,
    });
  }
  return unavailable(action, error);
}

function malformed(item: Item, field: string): ServiceError {
  return new ServiceError('internalError', `A stored idempotency item is malformed (field "${field}")`, {
    details: { pk: item[TABLE_ATTRIBUTES.partitionKey], field },
  });
}

function stringField(item: Item, field: string): string {
  const value = item[field];
  if (typeof value !== 'string' || value === '') throw malformed(item, field);
  return value;
}

function secondsField(item: Item, field: string): number {
  const value = item[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw malformed(item, field);
  return value;
}

/**
 * Narrows a raw idempotency item.
 * @throws ServiceError `internalError` when the item does not have one of the two shapes
 */
function toRecord(item: Item): IdempotencyRecord {
  const requestHash = stringField(item, 'request_hash');
  const expiresAt = secondsField(item, TABLE_ATTRIBUTES.ttl);
  const status = item.status;
  if (status === STATUS.inProgress) {
    return {
      status,
      requestHash,
      lockToken: stringField(item, 'lock_token'),
      lockExpiresAt: secondsField(item, 'lock_expires_at'),
      expiresAt,
    };
  }
  if (status === STATUS.completed) {
    const body = item.response_body;
    const pointer = item.result_pointer;
    let response: StoredResponse;
    if (typeof body === 'string' && pointer === undefined) response = { kind: 'inline', body };
    else if (typeof pointer === 'string' && pointer !== '' && body === undefined) {
      response = { kind: 'pointer', pointer };
    } else throw malformed(item, 'response_body');
    return { status, requestHash, executionUuid: stringField(item, 'execution_uuid'), response, expiresAt };
  }
  throw malformed(item, 'status');
}

/**
 * The `Update` that marks a key COMPLETED with its response, for the metering transaction
 * (`UsageStore.recordExecution`). It is conditioned on the key still being locked by `lockToken`,
 * so a run whose lock was taken over cannot complete it, and then nothing of that run is metered.
 * @param tableName - the service table
 */
export function idempotencyCompletionWrite(
  tableName: string,
  completion: IdempotencyCompletion,
): TransactWriteItem {
  const stored =
    completion.response.kind === 'inline'
      ? { set: 'response_body = :response', remove: 'result_pointer', value: completion.response.body }
      : { set: 'result_pointer = :response', remove: 'response_body', value: completion.response.pointer };
  return {
    Update: {
      TableName: tableName,
      Key: keys.idempotency(completion.appId, completion.keyHash),
      UpdateExpression:
        `SET #status = :completed, execution_uuid = :uuid, completed_at = :completedAt, ` +
        `#ttl = :ttl, ${stored.set} REMOVE ${stored.remove}`,
      ConditionExpression: '#token = :token AND #status = :inProgress',
      ExpressionAttributeNames: {
        '#status': NAMES['#status'],
        '#token': NAMES['#token'],
        '#ttl': NAMES['#ttl'],
      },
      ExpressionAttributeValues: {
        ':completed': STATUS.completed,
        ':inProgress': STATUS.inProgress,
        ':uuid': completion.executionUuid,
        ':completedAt': completion.completedAt.toISOString(),
        ':ttl': completion.expiresAt,
        ':token': completion.lockToken,
        ':response': stored.value,
      },
    },
  };
}

/** Reads and writes idempotency items in the service table. */
export class IdempotencyStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;

  /**
   * @param deps.client - document client (built once per container)
   * @param deps.tableName - the service table
   */
  constructor(deps: { client: DynamoDBDocumentClient; tableName: string }) {
    this.#client = deps.client;
    this.#tableName = deps.tableName;
  }

  /**
   * Takes the lock of a key with a conditional `PutItem`: succeeds when the key is unknown, its
   * item has expired (`ttl` ≤ now), or it is IN_PROGRESS with a lock whose time has passed (a
   * crashed or released run). The new item replaces the old one entirely.
   * @returns `acquired`, or `held` when another run holds the key or has completed it (read it with {@link get})
   * @throws StorageUnavailableError when DynamoDB cannot be reached or throttles
   */
  async tryLock(lock: LockRequest): Promise<LockOutcome> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: {
            ...keys.idempotency(lock.appId, lock.keyHash),
            type: 'idempotency',
            app_id: lock.appId,
            status: STATUS.inProgress,
            request_hash: lock.requestHash,
            lock_token: lock.lockToken,
            lock_expires_at: lock.lockExpiresAt,
            created_at: new Date(lock.now * 1000).toISOString(),
            [TABLE_ATTRIBUTES.ttl]: lock.expiresAt,
          },
          ConditionExpression:
            'attribute_not_exists(#pk) OR #ttl <= :now OR (#status = :inProgress AND #lockExpires <= :now)',
          ExpressionAttributeNames: {
            '#pk': NAMES['#pk'],
            '#ttl': NAMES['#ttl'],
            '#status': NAMES['#status'],
            '#lockExpires': NAMES['#lockExpires'],
          },
          ExpressionAttributeValues: { ':now': lock.now, ':inProgress': STATUS.inProgress },
        }),
      );
      return 'acquired';
    } catch (error) {
      // A conflict means the metering transaction of the holder is committing right now.
      const name = errorName(error);
      if (name === 'ConditionalCheckFailedException' || name === 'TransactionConflictException')
        return 'held';
      throw storageError('take the idempotency lock', error);
    }
  }

  /**
   * Reads a key with a strongly consistent read. Expired items are returned as they are: the
   * caller compares `expiresAt` with its clock.
   * @returns the record, or `undefined` when no item exists
   * @throws StorageUnavailableError when DynamoDB cannot be read
   * @throws ServiceError `internalError` when the item is malformed
   */
  async get(appId: string, keyHash: string): Promise<IdempotencyRecord | undefined> {
    let item: Item | undefined;
    try {
      const output = await this.#client.send(
        new GetCommand({
          TableName: this.#tableName,
          Key: keys.idempotency(appId, keyHash),
          ConsistentRead: true,
        }),
      );
      item = output.Item;
    } catch (error) {
      throw storageError('read an idempotency key', error);
    }
    return item === undefined ? undefined : toRecord(item);
  }

  /**
   * Releases a lock after a failed run (`lock_expires_at` = 0), so the key can be retried at once.
   * An `UpdateItem`, not a delete: the invoke function may only get, put and update items.
   * @returns false when the lock is no longer ours (taken over, or the run was completed after all)
   * @throws StorageUnavailableError when DynamoDB cannot be reached (the lock then expires on its own)
   */
  async release(appId: string, keyHash: string, lockToken: string): Promise<boolean> {
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: keys.idempotency(appId, keyHash),
          UpdateExpression: 'SET #lockExpires = :released',
          ConditionExpression: '#token = :token AND #status = :inProgress',
          ExpressionAttributeNames: {
            '#lockExpires': NAMES['#lockExpires'],
            '#token': NAMES['#token'],
            '#status': NAMES['#status'],
          },
          ExpressionAttributeValues: {
            ':released': 0,
            ':token': lockToken,
            ':inProgress': STATUS.inProgress,
          },
        }),
      );
      return true;
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') return false;
      throw storageError('release an idempotency lock', error);
    }
  }
}
