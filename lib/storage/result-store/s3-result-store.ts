/**
 * A {@link ResultStore} in an S3 bucket: the only module that imports the S3 client. Encryption and
 * expiry are the bucket's (default encryption and a lifecycle rule set by the stack).
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ServiceError, StorageUnavailableError } from '../../errors';
import { assertResultKey, type ResultStore } from './result-store';

/** S3 errors that are deployment mistakes (500), not outages (503). */
const NON_TRANSIENT = new Set(['AccessDenied', 'NoSuchBucket', 'InvalidBucketName', 'PermanentRedirect']);

function storageError(action: string, error: unknown): ServiceError {
  const name = error instanceof Error ? error.name : String(error);
  if (name === 'NoSuchKey') {
    return new ServiceError('internalError', 'A stored result is missing from the bucket', { cause: error });
  }
  if (NON_TRANSIENT.has(name)) {
    return new ServiceError('internalError', `The result store could not ${action}: ${name}`, {
      cause: error,
    });
  }
  return new StorageUnavailableError(`The result store could not ${action} (${name})`, { cause: error });
}

/** Keeps each object as `s3://<bucket>/<key>`. */
export class S3ResultStore implements ResultStore {
  readonly #client: S3Client;
  readonly #bucketName: string;

  /**
   * @param options.bucketName - the result bucket (`RESULT_BUCKET_NAME`)
   * @param options.client - S3 client; default one built from the SDK's environment chain
   */
  constructor(options: { bucketName: string; client?: S3Client }) {
    this.#bucketName = options.bucketName;
    this.#client = options.client ?? new S3Client({});
  }

  /**
   * A single `PutObject` (all or nothing).
   * @returns `s3://<bucket>/<key>`
   * @throws StorageUnavailableError when S3 cannot be written
   */
  async put(key: string, bytes: Uint8Array): Promise<string> {
    assertResultKey(key);
    try {
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucketName,
          Key: key,
          Body: bytes,
          ContentType: 'application/json',
        }),
      );
    } catch (error) {
      throw storageError('write a result', error);
    }
    return `s3://${this.#bucketName}/${key}`;
  }

  /**
   * @throws ServiceError `internalError` when the pointer names another bucket or the object is gone
   * @throws StorageUnavailableError when S3 cannot be read
   */
  async get(pointer: string): Promise<Buffer> {
    const prefix = `s3://${this.#bucketName}/`;
    if (!pointer.startsWith(prefix)) {
      throw new ServiceError(
        'internalError',
        'A result pointer does not name an object of the result bucket',
      );
    }
    const key = pointer.slice(prefix.length);
    assertResultKey(key);
    try {
      const output = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucketName, Key: key }));
      if (output.Body === undefined) throw new Error('S3 returned no body');
      return Buffer.from(await output.Body.transformToByteArray());
    } catch (error) {
      throw storageError('read a result', error);
    }
  }
}
