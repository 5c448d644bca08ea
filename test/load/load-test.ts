/**
 * Load test of exactly-once metering (`npm run load`): starts its own local stack (rate limit off),
 * adds a second app, fires Engine.Invoke from many concurrent connections with autocannon across
 * both apps, both singers and several bodies, then checks that Usages.List reports, per app and
 * engine, exactly the count and the energies the clients received. Prints requests, errors,
 * p50/p99 latency and the check; exits 1 when the check fails. Loopback only; the stack and its
 * DynamoDB Local JVM are stopped at the end, also on failure or Ctrl-C.
 *
 * Options (env): `LOAD_REQUESTS` (default 600), `LOAD_CONNECTIONS` (default 24),
 * `LOAD_TIMEOUT_SECONDS` (default 300, for the load phase; the run fails when it is exceeded).
 */
import autocannon from 'autocannon';
import {
  createApp,
  createJwtCredential,
  createServiceTokenCredential,
  mintJwt,
} from '../../lib/auth/credentials';
import { CredentialStore } from '../../lib/storage/credential-store';
import { createDocumentClient } from '../../lib/storage/dynamodb-client';
import { type LocalStack, type LocalStackFile, startLocalStack } from './local-stack';

const PREFIX = '5A22C6DFE641404096876E9928EA1294';
const ENGINES = [`${PREFIX}.hikari`, `${PREFIX}.leo`] as const;
type EngineId = (typeof ENGINES)[number];

/** Bodies per engine, of different lengths and songs, so the energies differ between requests. */
const BODIES: Record<EngineId, readonly Record<string, unknown>[]> = {
  [`${PREFIX}.hikari`]: [
    { lyrics: ['something like you', 'all about you'], bgm_index: 0, model_version: 'v1' },
    { lyrics: ['あしたへのみち'] },
    { lyrics: ['きらきらひかる', 'おそらのほしよ'], bgm_index: 1 },
  ],
  [`${PREFIX}.leo`]: [
    { lyrics: ['twinkle twinkle little star'] },
    { lyrics: ['how I wonder', 'what you are'], bgm_index: 0 },
    { lyrics: ['joyful joyful we adore thee'], bgm_index: 1 },
  ],
};

/** Energy and count, summed. */
interface Tally {
  count: number;
  request: number;
  response: number;
  service: number;
  total: number;
}

interface LoadApp {
  readonly label: string;
  readonly appId: string;
  /** ST token and JWT; requests alternate between them. */
  readonly tokens: readonly [string, string];
}

function positiveIntegerEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function emptyTally(): Tally {
  return { count: 0, request: 0, response: 0, service: 0, total: 0 };
}

function pick<T>(list: readonly T[], index: number): T {
  const value = list[index % list.length];
  if (value === undefined) throw new Error('pick from an empty list');
  return value;
}

const utcDay = (): string => new Date().toISOString().slice(0, 10);

function field(value: unknown, ...path: string[]): unknown {
  let current: unknown = value;
  for (const name of path) {
    current = typeof current === 'object' && current !== null ? Reflect.get(current, name) : undefined;
  }
  return current;
}

function nonNegativeInteger(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new Error(`${what} is not a non-negative integer: ${JSON.stringify(value)}`);
  }
  return value;
}

/** Creates the second app with an ST and a JWT credential, directly in the stack's table. */
async function createSecondApp(local: LocalStackFile): Promise<LoadApp> {
  const client = createDocumentClient({
    endpoint: local.dynamodb_endpoint,
    region: local.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const store = new CredentialStore({ client, tableName: local.table_name });
    const app = await createApp(store, { name: 'load test, second app' });
    const st = await createServiceTokenCredential(store, { appId: app.app_id });
    const jwtCredential = await createJwtCredential(store, { appId: app.app_id });
    if (jwtCredential.privateKeyPem === undefined) throw new Error('expected a generated private key');
    const jwt = mintJwt({
      appId: app.app_id,
      credentialId: jwtCredential.credential.id,
      privateKeyPem: jwtCredential.privateKeyPem,
      audience: local.audience,
    });
    return { label: 'second', appId: app.app_id, tokens: [st.token, jwt] };
  } finally {
    client.destroy();
  }
}

/** Usages.List by engine over a day range, per engine id. */
async function reportByEngine(stack: LocalStack, app: LoadApp, start: string, end: string) {
  const response = await fetch(
    `${stack.baseUrl}/v1/apps/${app.appId}/usages?start=${start}&end=${end}&detail=true`,
    { headers: { authorization: `Bearer ${app.tokens[0]}` } },
  );
  const body: unknown = await response.json();
  if (response.status !== 200)
    throw new Error(`Usages.List answered ${response.status}: ${JSON.stringify(body)}`);
  const rows = field(body, 'usage_list');
  if (!Array.isArray(rows)) throw new Error('Usages.List has no usage_list');
  const byEngine = new Map<string, Tally>();
  for (const row of rows) {
    const engineId = field(row, 'engine_id');
    if (typeof engineId !== 'string') throw new Error('a usage row has no engine_id');
    const tally = byEngine.get(engineId) ?? emptyTally();
    tally.count += nonNegativeInteger(field(row, 'count'), 'count');
    tally.request += nonNegativeInteger(field(row, 'request'), 'request');
    tally.response += nonNegativeInteger(field(row, 'response'), 'response');
    tally.service += nonNegativeInteger(field(row, 'service'), 'service');
    tally.total = tally.request + tally.response + tally.service;
    byEngine.set(engineId, tally);
  }
  return { byEngine, total: nonNegativeInteger(field(body, 'usage', 'total'), 'usage.total') };
}

/** What the clients saw during the load phase. */
interface LoadOutcome {
  readonly result: autocannon.Result;
  /** Keyed `<appId> <engineId>`. */
  readonly received: Map<string, Tally>;
  readonly statuses: Map<number, number>;
  readonly uuids: Set<string>;
  readonly duplicateUuids: number;
  readonly unreadable: number;
  readonly timedOut: boolean;
}

async function runLoad(
  stack: LocalStack,
  apps: readonly LoadApp[],
  options: { requests: number; connections: number; timeoutSeconds: number },
): Promise<LoadOutcome> {
  const received = new Map<string, Tally>();
  const statuses = new Map<number, number>();
  const uuids = new Set<string>();
  let duplicateUuids = 0;
  let unreadable = 0;
  let next = 0;

  const book = (context: autocannon.Context, body: string): void => {
    const { appId, engineId } = context;
    const parsed: unknown = JSON.parse(body);
    const uuid = field(parsed, 'result', 'uuid');
    if (typeof appId !== 'string' || typeof engineId !== 'string' || typeof uuid !== 'string') {
      throw new Error('response without result.uuid');
    }
    const energy = (name: string) => nonNegativeInteger(field(parsed, 'usage', 'energy', name), name);
    const key = `${appId} ${engineId}`;
    const tally = received.get(key) ?? emptyTally();
    tally.count += 1;
    tally.request += energy('request');
    tally.response += energy('response');
    tally.service += energy('service');
    tally.total += energy('total');
    received.set(key, tally);
    if (uuids.has(uuid)) duplicateUuids += 1;
    uuids.add(uuid);
  };

  const request: autocannon.Request = {
    method: 'POST',
    setupRequest: (base, context) => {
      const i = next;
      next += 1;
      const app = pick(apps, i);
      const engineId = pick(ENGINES, Math.floor(i / apps.length));
      const body = pick(BODIES[engineId], Math.floor(i / (apps.length * ENGINES.length)));
      const token = pick(app.tokens, Math.floor(i / (apps.length * ENGINES.length * 3)));
      context.appId = app.appId;
      context.engineId = engineId;
      return {
        ...base,
        path: `/v1/engines/${engineId}`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      };
    },
    onResponse: (status, body, context) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status !== 200) return;
      try {
        book(context, body);
      } catch {
        unreadable += 1;
      }
    },
  };

  let timedOut = false;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: stack.baseUrl,
        connections: options.connections,
        amount: options.requests,
        timeout: options.timeoutSeconds,
        pipelining: 1,
        requests: [request],
      },
      (error, output) => {
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve(output);
      },
    );
    const deadline = setTimeout(() => {
      timedOut = true;
      instance.stop();
    }, options.timeoutSeconds * 1000);
  });
  return { result, received, statuses, uuids, duplicateUuids, unreadable, timedOut };
}

function formatTally(tally: Tally): string {
  return `count ${tally.count}, energy request ${tally.request} response ${tally.response} service ${tally.service} total ${tally.total}`;
}

function sameTally(a: Tally, b: Tally): boolean {
  return (
    a.count === b.count &&
    a.request === b.request &&
    a.response === b.response &&
    a.service === b.service &&
    a.total === b.total
  );
}

function minus(a: Tally, b: Tally): Tally {
  return {
    count: a.count - b.count,
    request: a.request - b.request,
    response: a.response - b.response,
    service: a.service - b.service,
    total: a.total - b.total,
  };
}

async function main(): Promise<number> {
  const requests = positiveIntegerEnv('LOAD_REQUESTS', 600);
  const connections = positiveIntegerEnv('LOAD_CONNECTIONS', 24);
  const timeoutSeconds = positiveIntegerEnv('LOAD_TIMEOUT_SECONDS', 300);

  // Node 20 is supported by the pinned SDK; its notice about future SDK releases is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const started = performance.now();
  // The limit is off: this test is about metering, and 600 requests a minute from two apps would trip it.
  const stack = await startLocalStack({ env: { RATE_LIMIT_PER_MINUTE: '0', POWERTOOLS_LOG_LEVEL: 'ERROR' } });
  const interrupt = (): void => {
    console.error('interrupted: stopping the local stack');
    void stack.stop().then(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  let passed = false;
  try {
    console.log(
      `local stack on ${stack.baseUrl} ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const apps: LoadApp[] = [
      { label: 'demo', appId: stack.demo.app_id, tokens: [stack.demo.st_token, stack.demo.jwt] },
      await createSecondApp(stack.local),
    ];
    const firstDay = utcDay();
    const baselines = await Promise.all(apps.map((app) => reportByEngine(stack, app, firstDay, firstDay)));

    console.log(
      `Engine.Invoke × ${requests} from ${connections} connections: ${apps.length} apps × ${ENGINES.length} engines × 3 bodies, ST and JWT alternating`,
    );
    const outcome = await runLoad(stack, apps, { requests, connections, timeoutSeconds });
    const { result } = outcome;
    const ok = outcome.statuses.get(200) ?? 0;
    const answered = [...outcome.statuses.values()].reduce((a, b) => a + b, 0);
    const byStatus = [...outcome.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    console.log(
      `requests: sent ${result.requests.sent}, answered ${answered} (${byStatus}), ` +
        `errors ${result.errors} (timeouts ${result.timeouts}), non-2xx ${result.non2xx}, ` +
        `${result.duration.toFixed(1)} s, ${(answered / result.duration).toFixed(1)} req/s`,
    );
    console.log(
      `latency: p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );

    const lastDay = utcDay();
    const reports = await Promise.all(apps.map((app) => reportByEngine(stack, app, firstDay, lastDay)));
    let metered = true;
    const expectedAll = emptyTally();
    const reportedAll = emptyTally();
    console.log(
      'metering check (Usages.List minus its value before the run, vs the sum of what clients received):',
    );
    apps.forEach((app, index) => {
      for (const engineId of ENGINES) {
        const expected = outcome.received.get(`${app.appId} ${engineId}`) ?? emptyTally();
        const before = baselines[index]?.byEngine.get(engineId) ?? emptyTally();
        const after = reports[index]?.byEngine.get(engineId) ?? emptyTally();
        const reported = minus(after, before);
        const same = sameTally(expected, reported);
        metered &&= same;
        for (const key of ['count', 'request', 'response', 'service', 'total'] as const) {
          expectedAll[key] += expected[key];
          reportedAll[key] += reported[key];
        }
        console.log(
          `  ${app.label} app ${app.appId} ${engineId.split('.')[1]}: expected ${formatTally(expected)} ${same ? '==' : '!='} reported ${formatTally(reported)}`,
        );
      }
      const reportTotal = (reports[index]?.total ?? 0) - (baselines[index]?.total ?? 0);
      const expectedTotal = ENGINES.reduce(
        (sum, engineId) => sum + (outcome.received.get(`${app.appId} ${engineId}`)?.total ?? 0),
        0,
      );
      metered &&= reportTotal === expectedTotal;
      console.log(
        `  ${app.label} app usage.total: expected ${expectedTotal} ${reportTotal === expectedTotal ? '==' : '!='} reported ${reportTotal}`,
      );
    });
    console.log(
      `  all: expected ${formatTally(expectedAll)} ${sameTally(expectedAll, reportedAll) ? '==' : '!='} reported ${formatTally(reportedAll)}`,
    );
    console.log(
      `distinct result uuids: ${outcome.uuids.size} of ${ok} results (duplicates ${outcome.duplicateUuids}, unreadable ${outcome.unreadable})`,
    );

    const problems: string[] = [];
    if (!metered) problems.push('Usages.List does not match what the clients received');
    if (outcome.duplicateUuids > 0 || outcome.unreadable > 0)
      problems.push('duplicate or unreadable results');
    if (ok === 0) problems.push('no invocation succeeded');
    if (outcome.timedOut) problems.push(`the load phase did not finish within ${timeoutSeconds} s`);
    if (result.errors > 0) {
      problems.push('requests without an answer (a result may be metered that no client received)');
    }
    passed = problems.length === 0;
    console.log(`check: ${passed ? 'PASS (expected == reported)' : `FAIL: ${problems.join('; ')}`}`);
  } catch (error) {
    console.error(`load test failed: ${error instanceof Error ? error.message : String(error)}`);
    console.error(`last output of the local stack:\n${stack.output()}`);
  } finally {
    const { leftoverJvmKilled } = await stack.stop();
    console.log(
      leftoverJvmKilled
        ? 'local stack stopped; a leftover DynamoDB Local JVM had to be killed'
        : 'local stack stopped, DynamoDB Local JVM gone',
    );
  }
  return passed ? 0 : 1;
}

process.exitCode = await main();
