/**
 * The one Lambda function construct of the stack: the defaults every handler of this service shares
 * (Node 22 on ARM64, local esbuild to one minified ESM file, X-Ray, source maps, a log group with
 * retention, Powertools settings) and `bindTable`, which sets the table name and grants in one call.
 */
import { join } from 'node:path';
import type { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../lib/config';

/**
 * DynamoDB data-plane actions a function may be granted on the service table. A closed list, so a
 * grant cannot widen by a typo, and `Scan` or `DeleteItem` cannot be granted at all.
 */
export type TableAction = 'GetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'ConditionCheckItem';

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
}

/** A `NodejsFunction` with the service's defaults and its own log group. */
export class LambdaFunction extends Construct {
  /** The function itself, for integrations and assertions. */
  readonly function: NodejsFunction;
  /** Its log group, kept one month. */
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: LambdaFunctionProps) {
    super(scope, id);

    // An explicit log group gives a retention; without it logs are kept forever.
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });

    const afterBundling = props.afterBundling ?? (() => []);
    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
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
        target: 'node22',
        minify: true,
        sourceMap: true,
        // File and line numbers are what traces need; the embedded sources would only grow the asset.
        sourcesContent: false,
        // CommonJS dependencies (kuromoji) call `require` for Node built-ins, which an ESM bundle lacks.
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        // The Node 22 runtime ships the AWS SDK v3.
        externalModules: ['@aws-sdk/*'],
        // Docker is not available on the build machines; esbuild is a devDependency.
        forceDockerBundling: false,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling,
        },
      },
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
