/**
 * The result store port: where idempotent responses too large for a DynamoDB item are kept (S3 in
 * AWS, a local directory on a developer machine).
 */
import { ServiceError } from '../../errors';

/** Stores whole objects under keys; an object is written completely or not at all. */
export interface ResultStore {
  /**
   * Writes an object, replacing any object with the same key.
   * @param key - relative path of `/`-separated segments of `[A-Za-z0-9._-]`, e.g. `results/<app>/<hash>/<uuid>.json`
   * @returns the pointer to keep and later pass to {@link ResultStore.get}
   * @throws StorageUnavailableError when the store cannot be written
   */
  put(key: string, bytes: Uint8Array): Promise<string>;
  /**
   * Reads an object written by {@link ResultStore.put}.
   * @throws StorageUnavailableError when the store cannot be read
   * @throws ServiceError `internalError` when the pointer is not this store's or the object is gone
   */
  get(pointer: string): Promise<Buffer>;
}

/** Keys are relative paths of plain segments, so they are safe as file paths and S3 keys alike. */
const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * Checks a result key.
 * @throws ServiceError `internalError` for a key outside the allowed form (a programming error)
 */
export function assertResultKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.length > 512) {
    throw new ServiceError('internalError', `Result key "${key.slice(0, 80)}" is malformed`);
  }
}
