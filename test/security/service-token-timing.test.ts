/**
 * A wrong secret for an existing ST credential and an unknown credential id must take the same
 * time to refuse, or an attacker could find out which credential ids exist.
 *
 * Measured at the authenticator level (`createAuthenticator` with the real `CredentialStore` on
 * DynamoDB Local), with many alternating attempts compared by their medians.
 */
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Authenticator, createAuthenticator } from '../../lib/auth/authenticate';
import type { CredentialReader } from '../../lib/auth/credential-cache';
import { AuthenticationError } from '../../lib/errors';
import { createTestApp, testCredentialStore } from '../support/test-apps';
import { randomServiceTokenSecret, unknownCredentialId } from './token-forge';

const CONFIG = {
  jwtAudience: process.env.JWT_AUDIENCE ?? '',
  jwtMaxLifetimeSeconds: 86_400,
  jwtClockSkewSeconds: 60,
} as const;

const store = testCredentialStore();
let existingId: string;

beforeAll(async () => {
  const app = await createTestApp(store);
  existingId = app.stToken.slice(3, 35);
});

/** Milliseconds one refused attempt takes; fails if the attempt is not refused as invalid. */
async function timeRefusal(authenticator: Authenticator, header: string): Promise<number> {
  const start = performance.now();
  const outcome = await authenticator.authenticate(header).then(
    () => undefined,
    (error: unknown) => error,
  );
  const elapsed = performance.now() - start;
  if (!(outcome instanceof AuthenticationError) || outcome.message !== 'The service token is not valid') {
    throw new Error(`expected "The service token is not valid", got ${String(outcome)}`);
  }
  return elapsed;
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/**
 * Runs `pairs` pairs of attempts, alternating which kind goes first so drift (JIT, GC, the other
 * engineers' processes on the shared cores) falls on both kinds alike.
 */
async function measurePairs(
  pairs: number,
  wrongSecret: (i: number) => Promise<number>,
  unknownId: (i: number) => Promise<number>,
): Promise<{ wrongSecret: number[]; unknownId: number[] }> {
  const samples = { wrongSecret: [] as number[], unknownId: [] as number[] };
  for (let i = 0; i < pairs; i += 1) {
    if (i % 2 === 0) {
      samples.wrongSecret.push(await wrongSecret(i));
      samples.unknownId.push(await unknownId(i));
    } else {
      samples.unknownId.push(await unknownId(i));
      samples.wrongSecret.push(await wrongSecret(i));
    }
  }
  return samples;
}

/** Medians of both kinds, and the median of the per-pair differences (wrong secret − unknown id). */
interface TimingSummary {
  readonly wrongSecretMedian: number;
  readonly unknownIdMedian: number;
  /** Median of all samples of both kinds: the scale the difference is compared with. */
  readonly overallMedian: number;
  /**
   * Median of the paired differences. Load from other processes hits both attempts of a pair
   * alike and cancels out, and a few slow outliers (GC, a JVM pause) cannot move a median, so this
   * is a much steadier estimate of a systematic difference than the difference of two medians.
   */
  readonly pairedDifference: number;
}

function summary(samples: { wrongSecret: number[]; unknownId: number[] }): TimingSummary {
  const differences = samples.wrongSecret.map((wrong, i) => wrong - (samples.unknownId[i] ?? Number.NaN));
  return {
    wrongSecretMedian: median(samples.wrongSecret),
    unknownIdMedian: median(samples.unknownId),
    overallMedian: median([...samples.wrongSecret, ...samples.unknownId]),
    pairedDifference: median(differences),
  };
}

function round(summaryValue: TimingSummary): Record<string, string> {
  return Object.fromEntries(
    Object.entries(summaryValue).map(([name, value]) => [name, `${(value * 1000).toFixed(1)} µs`]),
  );
}

/** Counts reads that reach the store (i.e. get past the credential cache). */
function countingStore(): CredentialReader & { reads: number } {
  const counter = {
    reads: 0,
    getCredential(credentialId: string) {
      counter.reads += 1;
      return store.getCredential(credentialId);
    },
  };
  return counter;
}

describe('service token refusal timing', () => {
  it('caches an unknown credential id like a known one, so repeating it never reaches the store', async () => {
    const reader = countingStore();
    const authenticator = createAuthenticator({ config: CONFIG, credentials: reader });
    const unknown = unknownCredentialId();

    for (let i = 0; i < 5; i += 1) {
      await timeRefusal(authenticator, `Bearer st_${unknown}_${randomServiceTokenSecret()}`);
      await timeRefusal(authenticator, `Bearer st_${existingId}_${randomServiceTokenSecret()}`);
    }

    expect(reader.reads).toBe(2);
  });

  it('refuses a wrong secret and an unknown id in the same time once both are cached (200 pairs)', async () => {
    const authenticator = createAuthenticator({ config: CONFIG, credentials: store });
    const unknown = unknownCredentialId();
    const wrongSecret = () =>
      timeRefusal(authenticator, `Bearer st_${existingId}_${randomServiceTokenSecret()}`);
    const unknownId = () => timeRefusal(authenticator, `Bearer st_${unknown}_${randomServiceTokenSecret()}`);
    // Warm-up: the first attempt of each reads the store, and the JIT settles.
    await measurePairs(50, wrongSecret, unknownId);

    const result = summary(await measurePairs(200, wrongSecret, unknownId));

    console.info(`warm ST refusals: ${JSON.stringify(round(result))}`);
    // Bound: 25 % of the median refusal time (≈16 µs here, so ≈4 µs), with a 2 µs floor for timer
    // and scheduler noise at this scale. Without negative caching the unknown id costs a DynamoDB
    // read (≈1–5 ms locally: over 100 × the bound), and any extra store round trip on one path is
    // as large; the remaining systematic difference measured here is ≈1 µs (≈5 %), far below what
    // can be seen through API Gateway and Lambda, whose own jitter is in milliseconds.
    expect(Math.abs(result.pairedDifference)).toBeLessThan(Math.max(0.25 * result.overallMedian, 0.002));
  });

  it('refuses a wrong secret and an unknown id in the same time on a cold cache (100 pairs)', async () => {
    const fresh = () => createAuthenticator({ config: CONFIG, credentials: store });
    const wrongSecret = () => timeRefusal(fresh(), `Bearer st_${existingId}_${randomServiceTokenSecret()}`);
    const unknownId = () =>
      timeRefusal(fresh(), `Bearer st_${unknownCredentialId()}_${randomServiceTokenSecret()}`);
    await measurePairs(20, wrongSecret, unknownId);

    const result = summary(await measurePairs(100, wrongSecret, unknownId));

    console.info(`cold ST refusals: ${JSON.stringify(round(result))}`);
    // Both attempts read DynamoDB once (≈5–8 ms locally). Bound: 25 % of the median, i.e. well
    // under one extra store round trip on either path, while DynamoDB Local's answer for a present
    // vs an absent item differs by ≈1–5 % here; paired differences keep the shared cores' load out.
    expect(Math.abs(result.pairedDifference)).toBeLessThan(0.25 * result.overallMedian);
  });
});
