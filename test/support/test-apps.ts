/**
 * Creates apps with working credentials in the test file's table, through the real domain code.
 */
import {
  createApp,
  createJwtCredential,
  createServiceTokenCredential,
  mintJwt,
} from '../../lib/auth/credentials';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';

/** An app with an ST token and a JWT valid for an hour. */
export interface TestApp {
  appId: string;
  stToken: string;
  jwt: string;
  jwtCredentialId: string;
  privateKeyPem: string;
}

/** The credential store of the test file's table. */
export function testCredentialStore(): CredentialStore {
  return new CredentialStore({ client: createDocumentClient(), tableName: process.env.TABLE_NAME ?? '' });
}

/** Creates an app with one ST and one JWT-EC-ES256 credential. */
export async function createTestApp(store: CredentialStore = testCredentialStore()): Promise<TestApp> {
  const app = await createApp(store, { name: 'test app' });
  const st = await createServiceTokenCredential(store, { appId: app.app_id });
  const jwtCredential = await createJwtCredential(store, { appId: app.app_id });
  const privateKeyPem = jwtCredential.privateKeyPem;
  if (privateKeyPem === undefined) throw new Error('expected a generated private key');
  const jwt = mintJwt({
    appId: app.app_id,
    credentialId: jwtCredential.credential.id,
    privateKeyPem,
    audience: process.env.JWT_AUDIENCE ?? '',
  });
  return {
    appId: app.app_id,
    stToken: st.token,
    jwt,
    jwtCredentialId: jwtCredential.credential.id,
    privateKeyPem,
  };
}
