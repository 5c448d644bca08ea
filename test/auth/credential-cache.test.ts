import { describe, expect, it } from 'vitest';
import type { Credential } from '../../lib/auth/credential';
import { CredentialCache, type CredentialReader } from '../../lib/auth/credential-cache';

/** A reader that counts its reads; the cache is pure logic, so no table is needed. */
function countingReader(): CredentialReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async getCredential(credentialId: string): Promise<Credential | undefined> {
      reads.push(credentialId);
      return credentialId === 'known'
        ? {
            app_id: 'A'.repeat(32),
            id: 'known',
            description: '',
            created_at: 0,
            expires_at: null,
            type: 'ST',
            secret_hash: 'A'.repeat(43),
          }
        : undefined;
    },
  };
}

describe('CredentialCache', () => {
  it('reuses a read for 30 s, hits and misses alike, then reads again', async () => {
    const source = countingReader();
    let clock = new Date('2030-01-01T00:00:00Z');
    const cache = new CredentialCache({ source, now: () => clock });

    await cache.getCredential('known');
    await cache.getCredential('unknown');
    clock = new Date(clock.getTime() + 29_999);
    await cache.getCredential('known');
    await cache.getCredential('unknown');
    expect(source.reads).toEqual(['known', 'unknown']);

    clock = new Date(clock.getTime() + 1);
    expect((await cache.getCredential('known'))?.id).toBe('known');
    expect(source.reads).toEqual(['known', 'unknown', 'known']);
  });

  it('drops the oldest entry beyond its size bound', async () => {
    const source = countingReader();
    const cache = new CredentialCache({ source, maxEntries: 2 });

    await cache.getCredential('a');
    await cache.getCredential('b');
    await cache.getCredential('c');
    await cache.getCredential('b');
    await cache.getCredential('a');

    expect(source.reads).toEqual(['a', 'b', 'c', 'a']);
  });

  it('does not cache failures', async () => {
    let fail = true;
    const cache = new CredentialCache({
      source: {
        async getCredential() {
          if (fail) throw new Error('down');
          return undefined;
        },
      },
    });

    await expect(cache.getCredential('x')).rejects.toThrow('down');
    fail = false;
    await expect(cache.getCredential('x')).resolves.toBeUndefined();
  });
});
