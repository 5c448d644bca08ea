/**
 * A short in-memory cache of credential reads, shared by the JWT and service-token verifiers.
 *
 * aws-jwt-verify asks for the key on every `verify()`, and a warm Lambda container serves many
 * requests with the same credential, so each container reads a credential at most once per TTL.
 * The price is that a revocation takes effect within the TTL (30 s by default), not instantly.
 */
import type { Credential } from './credential';

/** Anything that reads a credential by id (the DynamoDB store, or this cache). */
export interface CredentialReader {
  /**
   * @returns undefined when there is no credential with this id
   * @throws StorageUnavailableError when the store cannot be read
   */
  getCredential(credentialId: string): Promise<Credential | undefined>;
}

interface Entry {
  readonly credential: Credential | undefined;
  /** Epoch milliseconds after which the entry is read again. */
  readonly freshUntil: number;
}

/** Default time a read is reused, in seconds. */
export const DEFAULT_CREDENTIAL_CACHE_TTL_SECONDS = 30;

/** Caches credential reads (hits and misses) for a short time; failures are never cached. */
export class CredentialCache implements CredentialReader {
  readonly #source: CredentialReader;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => Date;
  readonly #entries = new Map<string, Entry>();

  /**
   * @param deps.source - where credentials are read from on a miss
   * @param deps.ttlSeconds - how long a read is reused (default 30 s)
   * @param deps.maxEntries - bound on cached ids (default 1000); the oldest entry is dropped first
   * @param deps.now - clock (default the system clock)
   */
  constructor(deps: {
    source: CredentialReader;
    ttlSeconds?: number;
    maxEntries?: number;
    now?: () => Date;
  }) {
    this.#source = deps.source;
    this.#ttlMs = (deps.ttlSeconds ?? DEFAULT_CREDENTIAL_CACHE_TTL_SECONDS) * 1000;
    this.#maxEntries = deps.maxEntries ?? 1000;
    this.#now = deps.now ?? (() => new Date());
  }

  /**
   * Returns the cached credential, or reads it from the source when absent or stale.
   * @throws StorageUnavailableError from the source
   */
  async getCredential(credentialId: string): Promise<Credential | undefined> {
    const nowMs = this.#now().getTime();
    const cached = this.#entries.get(credentialId);
    if (cached !== undefined && nowMs < cached.freshUntil) return cached.credential;
    const credential = await this.#source.getCredential(credentialId);
    // Re-inserting moves the id to the end of the Map's order, which is what eviction relies on.
    this.#entries.delete(credentialId);
    this.#entries.set(credentialId, { credential, freshUntil: nowMs + this.#ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    return credential;
  }
}
