/**
 * DynamoDB adapter for metering: execution records and the (app, day, engine) usage aggregates.
 *
 * One successful invocation is written in one `TransactWriteItems`: the execution record (keyed by
 * its uuid, so it can exist once) and an `ADD` of its count and energy to the aggregate item. The
 * report reads aggregates only, so its cost grows with days × engines, never with invocations.
 * An invocation with an `Idempotency-Key` adds a third item to the same transaction: the key's
 * completion (see `idempotency-store.ts`), so an execution is metered exactly when its key completes.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Energy } from '../engines/engine';
import { ServiceError, StorageUnavailableError } from '../errors';
import type { DayRange } from '../metering/usage-days';
import { type IdempotencyCompletion, idempotencyCompletionWrite } from './idempotency-store';
import { keys, TABLE_ATTRIBUTES } from './table-definition';

/** One metered execution, as written by {@link UsageStore.recordExecution}. */
export interface ExecutionRecord {
  /** Execution id (UUID), unique. */
  readonly uuid: string;
  readonly appId: string;
  readonly engineId: string;
  /** Usage day `yyyy-MM-dd` the energy is counted on. */
  readonly usageDate: string;
  /** When the request was received. */
  readonly receivedAt: Date;
  readonly energy: Energy;
  /** Tracking id of the request. */
  readonly tid: string;
  /** Unix seconds after which DynamoDB TTL may delete the execution record (aggregates are kept). */
  readonly expiresAtUnix: number;
}

/** One aggregate item: what one app consumed on one engine on one day. */
export interface UsageAggregate {
  /** `yyyy-MM-dd` */
  readonly date: string;
  readonly engineId: string;
  /** Number of executions. */
  readonly count: number;
  readonly request: number;
  readonly response: number;
  readonly service: number;
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Narrows a raw aggregate item.
 * @throws ServiceError `internalError` when the item does not have the aggregate shape
 */
function toAggregate(item: Record<string, unknown>): UsageAggregate {
  const { usage_date: date, engine_id: engineId, count, request, response, service } = item;
  if (
    typeof date !== 'string' ||
    typeof engineId !== 'string' ||
    !isNonNegativeInteger(count) ||
    !isNonNegativeInteger(request) ||
    !isNonNegativeInteger(response) ||
    !isNonNegativeInteger(service)
  ) {
    throw new ServiceError('internalError', 'A usage aggregate item is malformed', {
      details: { pk: item[TABLE_ATTRIBUTES.partitionKey], sk: item[TABLE_ATTRIBUTES.sortKey] },
    });
  }
  return { date, engineId, count, request, response, service };
}

/** SDK errors that are our own mistakes (a malformed request, a missing table), not an outage. */
const NON_TRANSIENT = new Set(['ValidationException', 'ResourceNotFoundException', 'AccessDeniedException']);

/**
 * Classifies an SDK failure: configuration or request bugs are internal errors (500); everything
 * else (network, throttling, transaction conflicts, service errors) is a retryable outage (503).
 */
function storageError(message: string, error: unknown): ServiceError {
  if (error instanceof Error && NON_TRANSIENT.has(error.name)) {
    return new ServiceError('internalError', `${message}: ${error.name}`, { cause: error });
  }
  return new StorageUnavailableError(message, { cause: error });
}

/** Reads and writes metering items in the service table. */
export class UsageStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #pageSize: number | undefined;

  /**
   * @param deps.client - document client (built once per container)
   * @param deps.tableName - the service table
   * @param deps.pageSize - items per `Query` page; default: DynamoDB's 1 MB pages
   */
  constructor(deps: { client: DynamoDBDocumentClient; tableName: string; pageSize?: number }) {
    this.#client = deps.client;
    this.#tableName = deps.tableName;
    this.#pageSize = deps.pageSize;
  }

  /**
   * Writes the execution record and adds its energy to the day's aggregate, all or nothing; with
   * `options.idempotency`, the same transaction also marks the idempotency key COMPLETED.
   * @param options.idempotency - the completion of the key this run holds the lock of
   * @throws ServiceError `internalError` when an execution with this uuid already exists (nothing is added)
   * @throws ServiceError `requestInProgress` (409) when the run no longer holds its idempotency lock
   *   (another run took the key over after the lock expired; nothing is added)
   * @throws StorageUnavailableError when DynamoDB cannot be reached, throttles, or cancels for a conflict
   */
  async recordExecution(
    record: ExecutionRecord,
    options: { readonly idempotency?: IdempotencyCompletion | undefined } = {},
  ): Promise<void> {
    const execution = keys.execution(record.uuid);
    const completion =
      options.idempotency === undefined
        ? []
        : [idempotencyCompletionWrite(this.#tableName, options.idempotency)];
    try {
      await this.#client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.#tableName,
                Item: {
                  ...execution,
                  type: 'execution',
                  uuid: record.uuid,
                  app_id: record.appId,
                  engine_id: record.engineId,
                  usage_date: record.usageDate,
                  received_at: record.receivedAt.toISOString(),
                  request: record.energy.request,
                  response: record.energy.response,
                  service: record.energy.service,
                  tid: record.tid,
                  [TABLE_ATTRIBUTES.ttl]: record.expiresAtUnix,
                },
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': TABLE_ATTRIBUTES.partitionKey },
              },
            },
            {
              Update: {
                TableName: this.#tableName,
                Key: keys.usageAggregate(record.appId, record.usageDate, record.engineId),
                // Every name is aliased: count, request, response and service are DynamoDB reserved words.
                UpdateExpression:
                  'SET #type = :type, #app = :app, #engine = :engine, #date = :date ' +
                  'ADD #count :one, #request :request, #response :response, #service :service',
                ExpressionAttributeNames: {
                  '#type': 'type',
                  '#app': 'app_id',
                  '#engine': 'engine_id',
                  '#date': 'usage_date',
                  '#count': 'count',
                  '#request': 'request',
                  '#response': 'response',
                  '#service': 'service',
                },
                ExpressionAttributeValues: {
                  ':type': 'usage',
                  ':app': record.appId,
                  ':engine': record.engineId,
                  ':date': record.usageDate,
                  ':one': 1,
                  ':request': record.energy.request,
                  ':response': record.energy.response,
                  ':service': record.energy.service,
                },
              },
            },
            ...completion,
          ],
        }),
      );
    } catch (error) {
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
      ) {
        throw new ServiceError('internalError', `Execution ${record.uuid} was already recorded`, {
          cause: error,
        });
      }
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[2]?.Code === 'ConditionalCheckFailed'
      ) {
        throw new ServiceError(
          'requestInProgress',
          'Another request with the same Idempotency-Key took over after this one ran past its lock; retry to get its result',
          { cause: error, retryAfterSeconds: 1 },
        );
      }
      throw storageError('The usage store could not record the execution', error);
    }
  }

  /**
   * Whether the execution record of `uuid` exists (strongly consistent read). Used after an
   * ambiguous metering failure: a write can be applied while every answer to it is lost.
   * @throws StorageUnavailableError when DynamoDB cannot be read either
   */
  async wasRecorded(uuid: string): Promise<boolean> {
    try {
      const found = await this.#client.send(
        new GetCommand({
          TableName: this.#tableName,
          Key: keys.execution(uuid),
          ConsistentRead: true,
          ProjectionExpression: '#pk',
          ExpressionAttributeNames: { '#pk': TABLE_ATTRIBUTES.partitionKey },
        }),
      );
      return found.Item !== undefined;
    } catch (error) {
      throw storageError('The usage store could not be read', error);
    }
  }

  /**
   * All aggregates of an app between two days (both included), in sort-key order
   * (date ascending, then engine id). Paginates through every page of the `Query`.
   * @throws StorageUnavailableError when DynamoDB cannot be read
   */
  async listAggregates(appId: string, range: DayRange): Promise<UsageAggregate[]> {
    const bounds = keys.usageRange(appId, range.start, range.end);
    const aggregates: UsageAggregate[] = [];
    try {
      const pages = paginateQuery(
        { client: this.#client, pageSize: this.#pageSize },
        {
          TableName: this.#tableName,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': TABLE_ATTRIBUTES.partitionKey, '#sk': TABLE_ATTRIBUTES.sortKey },
          ExpressionAttributeValues: { ':pk': bounds.pk, ':from': bounds.skFrom, ':to': bounds.skTo },
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) aggregates.push(toAggregate(item));
      }
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw storageError('The usage store could not be read', error);
    }
    return aggregates;
  }
}
