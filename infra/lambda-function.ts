/**
 * The one Lambda function construct of the stack: the defaults every handler of this service shares
 * (Node 22 on ARM64, local esbuild to one minified ESM file, X-Ray, source maps, a log group with
 * retention, Powertools settings), and `bindTable`/`bindResultBucket`, which set the resource's name
 * and grant exactly the listed actions in one call.
 */
import { join, posix } from 'node:path';
import { type Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ENV } from '../lib/config';

/**
 * DynamoDB data-plane actions a function may be granted on the service table. A closed list, so a
 * grant cannot widen by a typo, and `Scan` or `DeleteItem` cannot be granted at all.
 */
export type TableAction = 'GetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'ConditionCheckItem';

/** S3 object actions a function may be granted on the result bucket: no delete, no listing. */
export type ObjectAction = 'GetObject' | 'PutObject';

/** Shell commands run on the build machine after esbuild, from the project root and the asset folder. */
export type AfterBundlingCommands = (inputDir: string, outputDir: string) => string[];

/** Settings that differ between the service's functions; everything else is a shared default. */
export interface LambdaFunctionProps {
  /** Absolute path of the handler's TypeScript entry file; it must export `handler`. */
  readonly entry: string;
  /** Absolute path of the folder holding `package-lock.json` (esbuild runs there). */
  readonly projectRoot: string;
  /** Shown in the Lambda console. */
  readonly description: string;
  /** Memory in MB; Lambda's CPU share grows with it. */
  readonly memorySize: number;
  readonly timeout: Duration;
  /** `POWERTOOLS_SERVICE_NAME`: the service name on every log line. */
  readonly serviceName: string;
  /** Service configuration (the names of `lib/config.ts`'s `ENV`), merged over the defaults. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Extra files for the asset (e.g. data files esbuild cannot follow). */
  readonly afterBundling?: AfterBundlingCommands;
  /**
   * Packages left out of the bundle and copied whole into the asset's `node_modules/`, where Node
   * resolves them at run time (`/var/task/node_modules`). For large data modules that would dwarf
   * the code in `index.mjs`; each must have no dependencies of its own.
   */
  readonly shippedPackages?: readonly string[];
}

/** The runtime of every function (the esbuild `target` below must follow it). */
export const RUNTIME = Runtime.NODEJS_22_X;

/** A `NodejsFunction` with the service's defaults, its own log group and its own role. */
export class LambdaFunction extends Construct {
  /** The function itself, for integrations and assertions. */
  readonly function: NodejsFunction;
  /** Its log group, kept one month. */
  readonly logGroup: LogGroup;
  /** Its execution role: its own log group, X-Ray, and what `bind*` grants. */
  readonly role: Role;

  constructor(scope: Construct, id: string, props: LambdaFunctionProps) {
    super(scope, id);

    // An explicit log group gives a retention; without it logs are kept forever.
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    // Writing to its own log group only, instead of AWSLambdaBasicExecutionRole's
    // CreateLogGroup/PutLogEvents on every log group of the account (cdk-nag AwsSolutions-IAM4).
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of: ${props.description}`,
    });
    this.logGroup.grantWrite(this.role);

    const shippedPackages = props.shippedPackages ?? [];
    const afterBundling: AfterBundlingCommands = (inputDir, outputDir) => [
      ...shippedPackages.flatMap((name) => copyPackageIntoAsset(name)(inputDir, outputDir)),
      ...(props.afterBundling?.(inputDir, outputDir) ?? []),
    ];
    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      description: props.description,
      runtime: RUNTIME,
      role: this.role,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      environment: {
        // Minified code: map stack traces back to the TypeScript sources.
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        // Follows RUNTIME.
        target: 'node22',
        minify: true,
        sourceMap: true,
        // File and line numbers are what traces need; the embedded sources would only grow the asset.
        sourcesContent: false,
        // CommonJS dependencies (kuromoji) call `require` for Node built-ins, which an ESM bundle lacks.
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        // The Node 22 runtime ships the AWS SDK v3; shipped packages are copied in by `afterBundling`.
        externalModules: ['@aws-sdk/*', ...shippedPackages],
        // Docker is not available on the build machines; esbuild is a devDependency.
        forceDockerBundling: false,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling,
        },
      },
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the X-Ray actions of active tracing (xray:PutTraceSegments, xray:PutTelemetryRecords), which support no ' +
        'resource-level permissions; every other statement names its table, bucket prefix or log group (pinned by test/infra).',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Pinned to nodejs22.x (maintained LTS), the runtime the bundle is built for (esbuild target node22); ' +
        'a runtime upgrade is a deliberate change with its own test run, not an automatic move to the newest one.',
    });
  }

  /**
   * Points the function at the table (`TABLE_NAME`) and grants exactly the given actions on the
   * table itself, not on its indexes.
   * @param table - the service table
   * @param actions - DynamoDB actions, without the `dynamodb:` prefix
   */
  bindTable(table: ITable, actions: readonly TableAction[]): void {
    this.function.addEnvironment(ENV.tableName, table.tableName);
    Grant.addToPrincipal({
      grantee: this.function,
      actions: actions.map((action) => `dynamodb:${action}`),
      resourceArns: [table.tableArn],
    });
  }

  /**
   * Points the function at the result bucket (`RESULT_BUCKET_NAME`) and grants exactly the given
   * actions on the objects under `keyPrefix` only.
   * @param bucket - the result bucket
   * @param keyPrefix - key prefix ending in `/`, e.g. `results/`
   * @param actions - S3 object actions, without the `s3:` prefix
   */
  bindResultBucket(bucket: IBucket, keyPrefix: string, actions: readonly ObjectAction[]): void {
    this.function.addEnvironment(ENV.resultBucketName, bucket.bucketName);
    Grant.addToPrincipal({
      grantee: this.function,
      actions: actions.map((action) => `s3:${action}`),
      resourceArns: [bucket.arnForObjects(`${keyPrefix}*`)],
    });
  }
}

/**
 * Copies a folder of the project into the asset, for data files a bundler cannot follow.
 * Runs on the build machine (local bundling), so plain `cp` works.
 * @param from - folder relative to the project root
 * @param to - folder relative to the asset root (the function's `/var/task`)
 */
export function copyIntoAsset(from: string, to: string): AfterBundlingCommands {
  return (inputDir, outputDir) => [`cp -r "${inputDir}/${from}" "${outputDir}/${to}"`];
}

/**
 * Copies an installed package into the asset's `node_modules/`, for packages kept out of the bundle.
 * @param name - package name as imported, e.g. `cmu-pronouncing-dictionary`
 */
export function copyPackageIntoAsset(name: string): AfterBundlingCommands {
  return (inputDir, outputDir) => [
    `mkdir -p "${outputDir}/node_modules/${posix.dirname(name)}"`,
    ...copyIntoAsset(`node_modules/${name}`, `node_modules/${name}`)(inputDir, outputDir),
  ];
}
