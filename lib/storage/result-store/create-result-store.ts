/**
 * Picks the result store from configuration: S3 in AWS, a local directory elsewhere.
 */
import type { ServiceConfig } from '../../config';
import { ServiceError } from '../../errors';
import { LocalDirectoryResultStore } from './local-directory-result-store';
import type { ResultStore } from './result-store';
import { S3ResultStore } from './s3-result-store';

/** Used when neither a bucket nor a directory is configured: large results cannot be kept. */
class UnconfiguredResultStore implements ResultStore {
  #fail(): never {
    throw new ServiceError(
      'internalError',
      'No result store is configured: set RESULT_BUCKET_NAME (S3) or RESULT_DIR (a local directory)',
    );
  }

  async put(): Promise<string> {
    this.#fail();
  }

  async get(): Promise<Buffer> {
    this.#fail();
  }
}

/**
 * The result store the configuration names: the S3 bucket when `resultBucketName` is set, else the
 * directory `resultDir`, else a store that fails every call with an internal error (500), since
 * without one a large idempotent result cannot be kept.
 */
export function createResultStore(
  config: Pick<ServiceConfig, 'resultBucketName' | 'resultDir'>,
): ResultStore {
  if (config.resultBucketName !== undefined)
    return new S3ResultStore({ bucketName: config.resultBucketName });
  if (config.resultDir !== undefined) return new LocalDirectoryResultStore({ directory: config.resultDir });
  return new UnconfiguredResultStore();
}
