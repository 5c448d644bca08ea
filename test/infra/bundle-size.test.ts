/**
 * Synthesizes the stack WITH bundling (local esbuild, as `cdk synth` does) into a temporary folder,
 * then checks the assets: the size budget of each function, the externalized dictionaries in place,
 * and that each bundle loads and answers an unknown route from its own asset folder.
 *
 * Budgets: usage function `index.mjs` ≤ 150 KB; invoke function code ≤ 1 MB, counting every
 * JavaScript file of the asset except the dictionaries (kuromoji's IPADIC and the CMU dictionary).
 * Source maps are reported but not counted: they are read only when a stack trace is printed.
 */
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, CfnElement } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceStack } from '../../infra/stack';

const run = promisify(execFile);

const KB = 1024;
const USAGE_INDEX_BUDGET = 150 * KB;
const INVOKE_CODE_BUDGET = 1024 * KB;
/** Asset folders holding data, not code. */
const DICTIONARY_DIRS = ['kuromoji-dict', 'node_modules/cmu-pronouncing-dictionary'];

const PROJECT_ROOT = new URL('../..', import.meta.url).pathname;

/** The feature flags of `cdk.json`, so the bundles are built as `cdk synth` builds them. */
function cdkJsonContext(): Record<string, unknown> {
  const context = at(JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')), 'context');
  if (typeof context !== 'object' || context === null) throw new Error('cdk.json has no context object');
  return { ...context };
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) =>
    statSync(join(dir, path)).isFile(),
  );
}

/** The asset folder of a function: CDK stages it as `asset.<hash>`, the S3 key is `<hash>.zip`. */
function assetDirOf(outdir: string, template: unknown, stack: ServiceStack, fn: NodejsFunction): string {
  const element = fn.node.defaultChild;
  if (!(element instanceof CfnElement)) throw new Error(`${fn.node.path} has no CloudFormation resource`);
  const key = at(template, 'Resources', stack.getLogicalId(element), 'Properties', 'Code', 'S3Key');
  if (typeof key !== 'string' || !key.endsWith('.zip')) throw new Error(`${fn.node.path}: no asset key`);
  return join(outdir, `asset.${key.slice(0, -'.zip'.length)}`);
}

/** Follows a path of keys through parsed JSON; `undefined` when any step is missing. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    current = typeof current === 'object' && current !== null ? Reflect.get(current, key) : undefined;
  }
  return current;
}

/** Runs a small ES module inside the asset folder with a Lambda-like environment; returns its stdout. */
async function runInAsset(assetDir: string, name: string, source: string): Promise<string> {
  writeFileSync(join(assetDir, name), source);
  const { stdout } = await run(process.execPath, ['--enable-source-maps', name], {
    cwd: assetDir,
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'probe',
      AWS_SECRET_ACCESS_KEY: 'probe',
      TABLE_NAME: 'probe-table',
      JWT_AUDIENCE: 'api.probe.example',
      POWERTOOLS_SERVICE_NAME: 'model-engine-api',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  });
  return stdout;
}

const UNKNOWN_ROUTE_PROBE = `
const { handler } = await import('./index.mjs');
const event = {
  version: '2.0', routeKey: '$default', rawPath: '/nowhere', rawQueryString: '', headers: {},
  isBase64Encoded: false,
  requestContext: { requestId: 'probe-tid', timeEpoch: Date.now(), routeKey: '$default', stage: '$default',
    http: { method: 'GET', path: '/nowhere', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'probe' } },
};
const context = { functionName: 'probe', awsRequestId: 'probe', getRemainingTimeInMillis: () => 10_000 };
const result = await handler(event, context);
console.log('PROBE ' + JSON.stringify({ status: result.statusCode, body: JSON.parse(result.body) }));
`;

const DICTIONARY_PROBE = `
const { dictionary } = await import('cmu-pronouncing-dictionary');
const resolved = import.meta.resolve('cmu-pronouncing-dictionary');
console.log('PROBE ' + JSON.stringify({ words: Object.keys(dictionary).length, hello: dictionary.hello, resolved }));
`;

function probeOutput(stdout: string): unknown {
  const line = stdout.split('\n').find((l) => l.startsWith('PROBE '));
  if (line === undefined) throw new Error(`probe printed no result:\n${stdout}`);
  return JSON.parse(line.slice('PROBE '.length));
}

describe('bundled assets', () => {
  let workDir: string;
  let invokeDir: string;
  let usagesDir: string;

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'bundle-size-'));
    const outdir = join(workDir, 'cdk.out');
    // Stand-in for the Lambda runtime's AWS SDK, the one package the bundles leave out: the only
    // thing resolvable above the asset folders.
    mkdirSync(join(workDir, 'node_modules'));
    symlinkSync(join(PROJECT_ROOT, 'node_modules', '@aws-sdk'), join(workDir, 'node_modules', '@aws-sdk'));

    const app = new App({ outdir, context: cdkJsonContext() });
    const stack = new ServiceStack(app, 'BundleBudget', {
      jwtAudience: 'api.probe.example',
      jwtMaxLifetimeSeconds: 3600,
      jwtClockSkewSeconds: 60,
      usageTimeZone: 'UTC',
      executionRetentionDays: 400,
      stageName: '$default',
      throttle: { rateLimit: 50, burstLimit: 100 },
      rateLimitPerMinute: 120,
      dynamodbTimeoutMs: 3000,
      idempotencyTtlSeconds: 86_400,
    });
    const template: unknown = app.synth().getStackByName(stack.stackName).template;
    invokeDir = assetDirOf(outdir, template, stack, stack.invokeEngineFunction);
    usagesDir = assetDirOf(outdir, template, stack, stack.listUsagesFunction);
  }, 180_000);

  afterAll(() => {
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  it('keeps the usage function index.mjs within 150 KB', () => {
    const size = statSync(join(usagesDir, 'index.mjs')).size;
    console.info(`usage index.mjs: ${(size / KB).toFixed(1)} KB (budget 150 KB)`);
    expect(filesUnder(usagesDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    expect(size).toBeLessThanOrEqual(USAGE_INDEX_BUDGET);
  });

  it('keeps the invoke function code within 1 MB, dictionaries aside', () => {
    const files = filesUnder(invokeDir);
    const isDictionary = (path: string) => DICTIONARY_DIRS.some((dir) => path.startsWith(`${dir}/`));
    const code = files.filter((path) => !isDictionary(path) && /\.(m|c)?js$/.test(path));
    const sizeOf = (paths: string[]) =>
      paths.reduce((sum, path) => sum + statSync(join(invokeDir, path)).size, 0);
    const codeBytes = sizeOf(code);
    console.info(
      `invoke code: ${(codeBytes / KB).toFixed(1)} KB (${code.join(', ')}; budget 1024 KB); ` +
        `source map ${(sizeOf(['index.mjs.map']) / KB).toFixed(1)} KB; ` +
        `dictionaries ${(sizeOf(files.filter(isDictionary)) / KB / KB).toFixed(1)} MB`,
    );
    expect(code).toEqual(['index.mjs']);
    expect(codeBytes).toBeLessThanOrEqual(INVOKE_CODE_BUDGET);
  });

  it('ships the dictionaries where the invoke function looks for them', () => {
    const files = filesUnder(invokeDir);
    expect(files).toContain('kuromoji-dict/base.dat.gz');
    expect(files).toContain('node_modules/cmu-pronouncing-dictionary/package.json');
    expect(files).toContain('node_modules/cmu-pronouncing-dictionary/index.js');
    // Externalized, not bundled as well: the bundle imports it by name.
    expect(readFileSync(join(invokeDir, 'index.mjs'), 'utf8')).toMatch(
      /import\(["']cmu-pronouncing-dictionary["']\)/,
    );
  });

  it.each([
    ['invoke', () => invokeDir],
    ['usage', () => usagesDir],
  ])('loads the %s bundle and answers an unknown route with the 404 error body', async (_name, dir) => {
    const output = probeOutput(await runInAsset(dir(), 'probe-route.mjs', UNKNOWN_ROUTE_PROBE));
    expect(output).toMatchObject({
      status: 404,
      body: { error: 'route_not_found', status_code: 404, data: { tid: 'probe-tid' } },
    });
  });

  it('resolves the CMU dictionary from the asset own node_modules', async () => {
    const output = probeOutput(await runInAsset(invokeDir, 'probe-dictionary.mjs', DICTIONARY_PROBE));
    expect(output).toMatchObject({
      hello: 'HH AH0 L OW1',
      resolved: `file://${invokeDir}/node_modules/cmu-pronouncing-dictionary/index.js`,
    });
    expect((output as { words: number }).words).toBeGreaterThan(130_000);
  });
});
