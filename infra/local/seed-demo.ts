/**
 * Seeds (idempotently) the local stack's demo app with one ST and one JWT credential, and writes
 * `$DATA_DIR/demo.json` with fresh tokens for it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createApp,
  createJwtCredential,
  createServiceTokenCredential,
  mintJwt,
} from '../../lib/auth/credentials';
import type { CredentialStore } from '../../lib/storage/credential-store';

/** Contents of `demo.json`. */
export interface DemoFile {
  readonly base_url: string;
  readonly app_id: string;
  readonly engine_id: string;
  readonly st_token: string;
  readonly jwt: string;
  readonly jwt_kid: string;
  readonly jwt_private_key_pem: string;
  readonly audience: string;
}

/** Lifetime of the demo JWT written at each start, in seconds (12 h; the service accepts up to 24 h). */
export const DEMO_JWT_LIFETIME_SECONDS = 12 * 3600;

function readPrevious(path: string): Partial<DemoFile> {
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Partial<DemoFile>) : {};
  } catch {
    return {};
  }
}

async function usable(
  store: CredentialStore,
  credentialId: string | undefined,
  appId: string,
): Promise<boolean> {
  if (credentialId === undefined) return false;
  const credential = await store.getCredential(credentialId);
  const now = Date.now() / 1000;
  return (
    credential !== undefined &&
    credential.app_id === appId &&
    credential.revoked_at == null &&
    (credential.expires_at == null || credential.expires_at > now + DEMO_JWT_LIFETIME_SECONDS)
  );
}

/**
 * Reuses the demo app and credentials named in an existing `demo.json` while they are still valid
 * in the table; otherwise creates new ones. Always mints a new JWT.
 */
export async function seedDemo(input: {
  store: CredentialStore;
  dataDir: string;
  baseUrl: string;
  audience: string;
  engineId: string;
}): Promise<DemoFile> {
  const path = join(input.dataDir, 'demo.json');
  const previous = readPrevious(path);
  const { store } = input;

  const appId =
    previous.app_id !== undefined && (await store.getApp(previous.app_id)) !== undefined
      ? previous.app_id
      : (await createApp(store, { name: 'demo' })).app_id;
  let stToken = previous.st_token;
  const stCredentialId = stToken?.split('_')[1];
  if (stToken === undefined || !(await usable(store, stCredentialId, appId))) {
    stToken = (await createServiceTokenCredential(store, { appId, description: 'local demo ST' })).token;
  }
  let kid = previous.jwt_kid;
  let privateKeyPem = previous.jwt_private_key_pem;
  if (privateKeyPem === undefined || !(await usable(store, kid, appId))) {
    const created = await createJwtCredential(store, { appId, description: 'local demo JWT' });
    if (created.privateKeyPem === undefined) throw new Error('the JWT credential came without a private key');
    kid = created.credential.id;
    privateKeyPem = created.privateKeyPem;
  }
  if (kid === undefined) throw new Error('no JWT credential id');
  const jwt = mintJwt({
    appId,
    credentialId: kid,
    privateKeyPem,
    audience: input.audience,
    lifetimeSeconds: DEMO_JWT_LIFETIME_SECONDS,
  });
  const demo: DemoFile = {
    base_url: input.baseUrl,
    app_id: appId,
    engine_id: input.engineId,
    st_token: stToken,
    jwt,
    jwt_kid: kid,
    jwt_private_key_pem: privateKeyPem,
    audience: input.audience,
  };
  writeFileSync(path, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}
