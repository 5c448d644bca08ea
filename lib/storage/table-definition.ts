/**
 * Physical layout of the single DynamoDB table: attribute names, the GSI, and the key builders of
 * every item type. The local stack and the CDK stack both create the table from these names.
 *
 * | item             | partition key (`pk`) | sort key (`sk`)                     | GSI `gsi1` (`gsi1pk` / `gsi1sk`)   |
 * |------------------|----------------------|-------------------------------------|------------------------------------|
 * | app              | `APP#<appId>`        | `APP`                               | –                                  |
 * | credential       | `CRED#<credId>`      | `CRED`                              | `APP#<appId>` / `CRED#<createdAt>#<credId>` |
 * | usage aggregate  | `APP#<appId>`        | `USAGE#<yyyy-MM-dd>#<engineId>`     | –                                  |
 * | execution        | `EXEC#<uuid>`        | `EXEC`                              | –  (expires through TTL `ttl`)     |
 * | idempotency key  | `IDEMP#<appId>#<sha256(key)>` | `IDEMP`                    | –  (expires through TTL `ttl`)     |
 * | rate-limit window| `RATE#<appId>`       | `<window start, ISO minute>`        | –  (expires through TTL `ttl`)     |
 */

/** Attribute names of the keys, the GSI and TTL. */
export const TABLE_ATTRIBUTES = {
  partitionKey: 'pk',
  sortKey: 'sk',
  gsi1PartitionKey: 'gsi1pk',
  gsi1SortKey: 'gsi1sk',
  ttl: 'ttl',
} as const;

/** Name of the GSI that lists an app's credentials. */
export const GSI1_NAME = 'gsi1';

/** Key builders, the only place that knows the key formats. */
export const keys = {
  app: (appId: string) => ({ pk: `APP#${appId}`, sk: 'APP' }),
  credential: (credentialId: string) => ({ pk: `CRED#${credentialId}`, sk: 'CRED' }),
  credentialByApp: (appId: string, createdAtIso: string, credentialId: string) => ({
    gsi1pk: `APP#${appId}`,
    gsi1sk: `CRED#${createdAtIso}#${credentialId}`,
  }),
  credentialsOfAppPartition: (appId: string) => `APP#${appId}`,
  usageAggregate: (appId: string, date: string, engineId: string) => ({
    pk: `APP#${appId}`,
    sk: `USAGE#${date}#${engineId}`,
  }),
  /** Inclusive sort-key bounds of an app's aggregates between two `yyyy-MM-dd` days. */
  usageRange: (appId: string, startDate: string, endDate: string) => ({
    pk: `APP#${appId}`,
    // '$' sorts after '#', so every engine of the end day is inside the bound.
    skFrom: `USAGE#${startDate}#`,
    skTo: `USAGE#${endDate}$`,
  }),
  execution: (uuid: string) => ({ pk: `EXEC#${uuid}`, sk: 'EXEC' }),
  /** @param keyHash - hex SHA-256 of the client's `Idempotency-Key` */
  idempotency: (appId: string, keyHash: string) => ({ pk: `IDEMP#${appId}#${keyHash}`, sk: 'IDEMP' }),
  /** @param windowStart - ISO timestamp of the window's first second, e.g. `2026-11-22T05:21:00Z` */
  rateLimitWindow: (appId: string, windowStart: string) => ({ pk: `RATE#${appId}`, sk: windowStart }),
} as const;
