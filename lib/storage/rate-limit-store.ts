/**
 * DynamoDB adapter for the rate limit's window counters: one item per (app, minute), counted with
 * a conditional `UpdateItem ADD`, so concurrent Lambda instances share one exact count.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ServiceError, StorageUnavailableError } from '../errors';
import type { RateLimitCounter } from '../metering/rate-limit';
import { keys, TABLE_ATTRIBUTES } from './table-definition';

/** SDK errors that are our own mistakes (a malformed request, a missing table), not an outage. */
const NON_TRANSIENT = new Set(['ValidationException', 'ResourceNotFoundException', 'AccessDeniedException']);

/** Item kind, as in the other stores' `type` attribute. */
const ITEM_TYPE = 'rate_limit_window';

/** Reads and writes rate-limit window counters in the service table. */
export class RateLimitStore implements RateLimitCounter {
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
   * Adds one to the window's `count` if it is below `limit`; DynamoDB applies concurrent updates of
   * one item one after the other, so at most `limit` calls per window succeed.
   * @returns the new count, or `undefined` when the window was full (the item is unchanged)
   * @throws StorageUnavailableError when DynamoDB cannot be reached or throttles (503)
   * @throws ServiceError `internalError` for a request DynamoDB rejects as malformed, or a malformed item
   */
  async incrementBelowLimit(input: {
    readonly appId: string;
    readonly windowKey: string;
    readonly limit: number;
    readonly expiresAtUnix: number;
  }): Promise<number | undefined> {
    let attributes: Record<string, unknown> | undefined;
    try {
      const output = await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: keys.rateLimitWindow(input.appId, input.windowKey),
          // `count` and `ttl` are DynamoDB reserved words, hence the aliases.
          UpdateExpression: 'SET #type = :type, #app = :app, #ttl = :ttl ADD #count :one',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: {
            '#type': 'type',
            '#app': 'app_id',
            '#ttl': TABLE_ATTRIBUTES.ttl,
            '#count': 'count',
          },
          ExpressionAttributeValues: {
            ':type': ITEM_TYPE,
            ':app': input.appId,
            ':ttl': input.expiresAtUnix,
            ':one': 1,
            ':limit': input.limit,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      attributes = output.Attributes;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return undefined;
      if (error instanceof Error && NON_TRANSIENT.has(error.name)) {
        throw new ServiceError(
          'internalError',
          `The rate-limit counter could not be written: ${error.name}`,
          {
            cause: error,
          },
        );
      }
      throw new StorageUnavailableError('The rate-limit counter could not be written', { cause: error });
    }
    const count = attributes?.count;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
      throw new ServiceError('internalError', 'A rate-limit window item is malformed', {
        details: { app_id: input.appId, window: input.windowKey },
      });
    }
    return count;
  }
}
