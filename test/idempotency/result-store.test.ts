import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServiceError, StorageUnavailableError } from '../../lib/errors';
import { createResultStore } from '../../lib/storage/result-store/create-result-store';
import { LocalDirectoryResultStore } from '../../lib/storage/result-store/local-directory-result-store';
import { S3ResultStore } from '../../lib/storage/result-store/s3-result-store';

const root = mkdtempSync(join(tmpdir(), 'result-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function isInternal(error: unknown): boolean {
  return error instanceof ServiceError && error.code === 'internalError';
}

describe('LocalDirectoryResultStore', () => {
  it('writes a result under its key and reads it back through the pointer, leaving no temporary file', async () => {
    const directory = join(root, 'roundtrip');
    const store = new LocalDirectoryResultStore({ directory });
    const bytes = Buffer.from(JSON.stringify({ result: 'x'.repeat(100_000), 明日: 1 }));
    const pointer = await store.put('results/APP1/abc/uuid-1.json', bytes);
    expect(pointer).toBe('file:results/APP1/abc/uuid-1.json');
    expect((await store.get(pointer)).equals(bytes)).toBe(true);
    expect(readFileSync(join(directory, 'results/APP1/abc/uuid-1.json')).equals(bytes)).toBe(true);
    expect(readdirSync(join(directory, 'results/APP1/abc'))).toEqual(['uuid-1.json']);
  });

  it('refuses keys and pointers that could leave its directory', async () => {
    const store = new LocalDirectoryResultStore({ directory: join(root, 'guarded') });
    await expect(store.put('../escape.json', Buffer.from('{}'))).rejects.toSatisfy(isInternal);
    await expect(store.put('/abs.json', Buffer.from('{}'))).rejects.toSatisfy(isInternal);
    await expect(store.get('file:../../etc/passwd')).rejects.toSatisfy(isInternal);
    await expect(store.get('s3://bucket/results/a.json')).rejects.toSatisfy(isInternal);
  });

  it('reports a missing result as an internal error and an unwritable directory as unavailable', async () => {
    const store = new LocalDirectoryResultStore({ directory: join(root, 'empty') });
    await expect(store.get('file:results/none.json')).rejects.toSatisfy(isInternal);
    const notADirectory = join(root, 'a-file');
    writeFileSync(notADirectory, 'x');
    const broken = new LocalDirectoryResultStore({ directory: notADirectory });
    await expect(broken.put('results/a.json', Buffer.from('{}'))).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
  });
});

describe('createResultStore', () => {
  it('uses S3 when a bucket is configured, else the directory, else fails as an internal error', async () => {
    expect(createResultStore({ resultBucketName: 'bucket', resultDir: root })).toBeInstanceOf(S3ResultStore);
    expect(createResultStore({ resultBucketName: undefined, resultDir: root })).toBeInstanceOf(
      LocalDirectoryResultStore,
    );
    const none = createResultStore({ resultBucketName: undefined, resultDir: undefined });
    await expect(none.put('results/a.json', Buffer.from('{}'))).rejects.toSatisfy(
      (error) => isInternal(error) && error instanceof Error && error.message.includes('RESULT_BUCKET_NAME'),
    );
  });
});

describe('S3ResultStore', () => {
  // No S3 is reachable here: only the checks made before any request are tested.
  it('refuses pointers of another bucket and malformed keys before calling S3', async () => {
    const store = new S3ResultStore({ bucketName: 'results-bucket' });
    await expect(store.get('s3://other-bucket/results/a.json')).rejects.toSatisfy(isInternal);
    await expect(store.get('file:results/a.json')).rejects.toSatisfy(isInternal);
    await expect(store.put('../a.json', Buffer.from('{}'))).rejects.toSatisfy(isInternal);
  });
});
