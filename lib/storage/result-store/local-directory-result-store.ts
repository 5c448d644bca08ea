/**
 * A {@link ResultStore} in a local directory, for the local stack and the tests (S3 stands in for it in AWS).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ServiceError, StorageUnavailableError } from '../../errors';
import { assertResultKey, type ResultStore } from './result-store';

/** Prefix of this store's pointers: `file:<key>`, relative to the directory. */
const SCHEME = 'file:';

function errorCode(error: unknown): string {
  const code: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' ? code : 'unknown';
}

/** Keeps each object as a file `<directory>/<key>`. */
export class LocalDirectoryResultStore implements ResultStore {
  readonly #directory: string;

  /** @param options.directory - root directory; created on the first write */
  constructor(options: { directory: string }) {
    this.#directory = resolve(options.directory);
  }

  /**
   * Writes a temporary file and renames it into place, so a reader never sees half a result.
   * @returns `file:<key>`
   * @throws StorageUnavailableError when the file cannot be written
   */
  async put(key: string, bytes: Uint8Array): Promise<string> {
    assertResultKey(key);
    const path = join(this.#directory, key);
    const temporary = `${path}.${randomUUID()}.tmp`;
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(temporary, bytes);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw new StorageUnavailableError(`The result store could not write a result (${errorCode(error)})`, {
        cause: error,
      });
    }
    return `${SCHEME}${key}`;
  }

  /**
   * @throws ServiceError `internalError` when the pointer is not a `file:` pointer or the file is missing
   * @throws StorageUnavailableError when the file cannot be read for another reason
   */
  async get(pointer: string): Promise<Buffer> {
    const key = pointer.startsWith(SCHEME) ? pointer.slice(SCHEME.length) : '';
    if (key === '') throw new ServiceError('internalError', 'A result pointer does not name a local file');
    assertResultKey(key);
    try {
      return await readFile(join(this.#directory, key));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') {
        throw new ServiceError('internalError', `A stored result is missing (${key})`, { cause: error });
      }
      throw new StorageUnavailableError(`The result store could not read a result (${errorCode(error)})`, {
        cause: error,
      });
    }
  }
}
