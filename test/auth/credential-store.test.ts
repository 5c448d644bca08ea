import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ServiceTokenCredential } from '../../lib/auth/credential';
import { createApp, newCredentialId } from '../../lib/auth/credentials';
import { ServiceError, StorageUnavailableError } from '../../lib/errors';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { keys } from '../../lib/storage/table-definition';
import { createTestStore, tableName } from './fixtures';

const store = createTestStore();
const documentClient = createDocumentClient();

function serviceTokenCredential(appId: string, id = newCredentialId()): ServiceTokenCredential {
  return {
    app_id: appId,
    id,
    description: '',
    created_at: 1_900_000_000,
    expires_at: null,
    type: 'ST',
    secret_hash: 'A'.repeat(43),
  };
}

describe('CredentialStore', () => {
  it('round-trips a credential and returns undefined for unknown ids', async () => {
    const app = await createApp(store, { name: 'store' });
    const credential = serviceTokenCredential(app.app_id);

    expect(await store.putCredential(credential)).toEqual({ ok: true });

    expect(await store.getCredential(credential.id)).toEqual(credential);
    expect(await store.getCredential(newCredentialId())).toBeUndefined();
    expect(await store.getApp('0'.repeat(32))).toBeUndefined();
  });

  it('never overwrites a credential id (kids are not reused) and requires the app', async () => {
    const app = await createApp(store, { name: 'dup' });
    const credential = serviceTokenCredential(app.app_id);
    await store.putCredential(credential);

    const duplicate = await store.putCredential({ ...credential, secret_hash: 'B'.repeat(43) });
    const orphan = await store.putCredential(serviceTokenCredential('9'.repeat(32)));

    expect(duplicate).toEqual({ ok: false, reason: 'alreadyExists' });
    expect(orphan).toEqual({ ok: false, reason: 'unknownApp' });
    expect(await store.getCredential(credential.id)).toEqual(credential);
  });

  it('reports an unknown credential on revoke as notFound', async () => {
    expect(await store.revokeCredential(newCredentialId(), new Date())).toEqual({ outcome: 'notFound' });
  });

  it('refuses a malformed item with an internal error instead of passing it on', async () => {
    const id = newCredentialId();
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.credential(id),
          type: 'credential',
          credential_id: id,
          app_id: 'A'.repeat(32),
          credential_type: 'ST',
        },
      }),
    );

    const error = await store.getCredential(id).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: 'internalError', status: 500 });
  });

  it('turns an unreachable DynamoDB into StorageUnavailableError', async () => {
    const unreachable = new CredentialStore({
      client: createDocumentClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 }),
      tableName: tableName(),
    });

    await expect(unreachable.getCredential(newCredentialId())).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
    await expect(unreachable.listCredentials('A'.repeat(32))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(unreachable.revokeCredential(newCredentialId(), new Date())).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
  });
});
