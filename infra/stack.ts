/**
 * The service's one stack: the DynamoDB table, the result bucket, the two functions, the HTTP API in
 * front of them with access logs, and the alarms. cdk-nag findings are fixed or acknowledged here,
 * next to the resource they concern, each with its reason.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  AttributeType,
  BillingMode,
  Operation,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { ENV } from '../lib/config';
import { GSI1_NAME, TABLE_ATTRIBUTES } from '../lib/storage/table-definition';
import { ServiceAlarms } from './alarms';
import { copyIntoAsset, LambdaFunction } from './lambda-function';

/** The repository root: esbuild's working directory and the base of the handler entry paths. */
const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Where the invoke function finds kuromoji's IPADIC files at run time (`/var/task` is the asset root). */
export const KUROMOJI_DICT_DIR = '/var/task/kuromoji-dict';

/** Name on every log line of both functions. */
const SERVICE_NAME = 'model-engine-api';

/** Key prefix of the stored results (`results/<app>/<key hash>/<uuid>.json`); the only one the invoke function may touch. */
export const RESULT_KEY_PREFIX = 'results/';

/**
 * Days a stored result is kept: the idempotency window rounded up to whole days, plus one so that
 * no result expires while a key may still replay it (S3 expires objects at the next midnight UTC
 * after the given days, never earlier).
 */
export function resultExpirationDays(idempotencyTtlSeconds: number): number {
  return Math.ceil(idempotencyTtlSeconds / 86_400) + 1;
}

/** The API's access log line: one JSON object per request, no headers, query strings or bodies. */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  errorMessage: '$context.error.message',
} as const;

/** Every DynamoDB operation the functions send (the table's alarms watch these). */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.QUERY,
  Operation.TRANSACT_WRITE_ITEMS,
] as const;

/** Deployment settings, read from CDK context by `infra/app.ts`. */
export interface ServiceStackProps extends StackProps {
  /** Expected JWT `aud` claim (the API's domain). */
  readonly jwtAudience: string;
  /** Longest accepted JWT lifetime `exp − iat`, in seconds. */
  readonly jwtMaxLifetimeSeconds: number;
  /** Clock skew tolerated on JWT time claims, in seconds. */
  readonly jwtClockSkewSeconds: number;
  /** IANA time zone whose calendar days usage is counted in. */
  readonly usageTimeZone: string;
  /** Days an execution record is kept before TTL removes it (aggregates are kept). */
  readonly executionRetentionDays: number;
  /** API Gateway stage name; `$default` serves the API at the root of its URL. */
  readonly stageName: string;
  /** Default throttling of every route: steady requests per second and burst size. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** Engine.Invoke requests per app per minute; 0 = no limit. */
  readonly rateLimitPerMinute: number;
  /** Time-out of one DynamoDB request attempt, in ms (both functions). */
  readonly dynamodbTimeoutMs: number;
  /** How long an `Idempotency-Key` is remembered, in seconds; stored results outlive it (see {@link resultExpirationDays}). */
  readonly idempotencyTtlSeconds: number;
  /** SNS topic the alarms notify; without it the alarms exist but send nothing. */
  readonly alarmTopicArn?: string | undefined;
}

/**
 * DynamoDB table, result bucket, Engine.Invoke and Usages.List functions, the HTTP API routing to
 * them, and the alarms.
 */
export class ServiceStack extends Stack {
  /** The single service table. */
  readonly table: Table;
  /** Idempotent results too large for a DynamoDB item, expired by a lifecycle rule. */
  readonly resultBucket: Bucket;
  /** `POST /v1/engines/{engine_id}` */
  readonly invokeEngineFunction: NodejsFunction;
  /** `GET /v1/apps/{app_id}/usages`, and every unmatched route (it answers with the 404 error body). */
  readonly listUsagesFunction: NodejsFunction;
  /** The HTTP API (payload format 2.0) with the two routes and `$default`. */
  readonly api: HttpApi;
  /** The API's only stage, auto-deployed, throttled and access-logged. */
  readonly stage: HttpStage;
  /** Where the stage writes one JSON line per request. */
  readonly accessLogGroup: LogGroup;
  /** API 5xx rate, function errors and throttles, table throttles and system errors. */
  readonly alarms: ServiceAlarms;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_ATTRIBUTES.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_ATTRIBUTES.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: TABLE_ATTRIBUTES.ttl,
      // Apps, credentials and usage history outlive any one deployment of the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: GSI1_NAME,
      partitionKey: { name: TABLE_ATTRIBUTES.gsi1PartitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_ATTRIBUTES.gsi1SortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });

    this.resultBucket = new Bucket(this, 'Results', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      lifecycleRules: [
        {
          id: 'expire-results',
          expiration: Duration.days(resultExpirationDays(props.idempotencyTtlSeconds)),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // Retained like the table: deleting the stack never deletes data behind its back, and no
      // auto-delete custom resource (an extra Lambda with s3:DeleteObject*) is needed. The lifecycle
      // rule empties a left-over bucket within days; the README says how to delete it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.resultBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Transient cache of idempotent results, written and read only by the invoke function role and expired in days; ' +
        'requests are already recorded by the API access log and execution items, so server access logs would add a second bucket without audit value.',
    });

    // Both handlers authenticate requests against the table, so both read the whole authentication
    // configuration and the DynamoDB time-out.
    const sharedEnvironment = {
      [ENV.jwtAudience]: props.jwtAudience,
      [ENV.jwtMaxLifetimeSeconds]: String(props.jwtMaxLifetimeSeconds),
      [ENV.jwtClockSkewSeconds]: String(props.jwtClockSkewSeconds),
      [ENV.usageTimeZone]: props.usageTimeZone,
      [ENV.dynamodbTimeoutMs]: String(props.dynamodbTimeoutMs),
    };

    const invokeEngine = new LambdaFunction(this, 'InvokeEngine', {
      entry: `${PROJECT_ROOT}/functions/invoke-engine.ts`,
      projectRoot: PROJECT_ROOT,
      description: 'Engine.Invoke: runs an engine and meters its energy',
      // kuromoji's tokenizer alone takes ~350 MB, and the render is CPU-bound.
      memorySize: 1536,
      // The HTTP API gives up on an integration after 30 s; answer before it does.
      timeout: Duration.seconds(28),
      serviceName: SERVICE_NAME,
      environment: {
        ...sharedEnvironment,
        [ENV.executionRetentionDays]: String(props.executionRetentionDays),
        [ENV.kuromojiDictDir]: KUROMOJI_DICT_DIR,
        [ENV.rateLimitPerMinute]: String(props.rateLimitPerMinute),
        [ENV.idempotencyTtlSeconds]: String(props.idempotencyTtlSeconds),
      },
      // esbuild cannot see the dictionary files kuromoji loads at run time.
      afterBundling: copyIntoAsset('node_modules/kuromoji/dict', 'kuromoji-dict'),
      // A 4.7 MB data module: loaded from the asset's node_modules, it keeps index.mjs small.
      shippedPackages: ['cmu-pronouncing-dictionary'],
    });
    // Credential lookup; idempotency items, rate-limit counters and the metering transaction are
    // Puts and Updates. No DeleteItem, Scan or Query.
    invokeEngine.bindTable(this.table, ['GetItem', 'PutItem', 'UpdateItem']);
    invokeEngine.bindResultBucket(this.resultBucket, RESULT_KEY_PREFIX, ['PutObject', 'GetObject']);
    Validations.of(invokeEngine).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.logicalIdOfArn(this.resultBucket.bucketArn)}.Arn>/${RESULT_KEY_PREFIX}*]`,
      reason:
        'Result keys are made per request (app, key hash, execution uuid), so no fixed object ARN exists; the grant is ' +
        "s3:GetObject and s3:PutObject only, on the results/ prefix of the stack's own bucket.",
    });
    this.invokeEngineFunction = invokeEngine.function;

    const listUsages = new LambdaFunction(this, 'ListUsages', {
      entry: `${PROJECT_ROOT}/functions/list-usages.ts`,
      projectRoot: PROJECT_ROOT,
      description: 'Usages.List: reports the metered energy of an app; also answers unknown routes',
      memorySize: 256,
      timeout: Duration.seconds(10),
      serviceName: SERVICE_NAME,
      environment: sharedEnvironment,
    });
    // Read-only: credential lookup and the aggregate range query on the base table.
    listUsages.bindTable(this.table, ['GetItem', 'Query']);
    this.listUsagesFunction = listUsages.function;

    const usagesIntegration = new HttpLambdaIntegration('ListUsagesIntegration', this.listUsagesFunction, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    this.api = new HttpApi(this, 'Api', {
      description: 'Model engine API: Engine.Invoke and Usages.List',
      // The stage is created below, with throttling and a configurable name.
      createDefaultStage: false,
      // `$default` route: unmatched paths get the documented 404 error body instead of API Gateway's own.
      defaultIntegration: usagesIntegration,
    });
    this.api.addRoutes({
      path: '/v1/engines/{engine_id}',
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('InvokeEngineIntegration', this.invokeEngineFunction, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    });
    this.api.addRoutes({
      path: '/v1/apps/{app_id}/usages',
      methods: [HttpMethod.GET],
      integration: usagesIntegration,
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every route authenticates in the handler (authentication middleware): ES256 JWTs and service tokens are checked ' +
        'against per-app credentials in the table, with revocation, which no API Gateway JWT authorizer can do; ' +
        'the $default route only answers the 404 error body.',
    });

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: props.stageName,
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    this.alarms = new ServiceAlarms(this, 'Alarms', {
      stage: this.stage,
      functions: { InvokeEngine: this.invokeEngineFunction, ListUsages: this.listUsagesFunction },
      table: this.table,
      tableOperations: TABLE_OPERATIONS,
      alarmTopic:
        props.alarmTopicArn === undefined
          ? undefined
          : Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn),
    });

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the API', value: this.stage.url });
    new CfnOutput(this, 'TableName', { description: 'The service table', value: this.table.tableName });
    new CfnOutput(this, 'ResultBucketName', {
      description: 'Bucket of large idempotent results',
      value: this.resultBucket.bucketName,
    });
  }

  /** Logical id of the resource behind an `Fn::GetAtt [<id>, 'Arn']` token, for finding ids. */
  private logicalIdOfArn(arn: string): string {
    const resolved: unknown = this.resolve(arn);
    const getAtt = typeof resolved === 'object' && resolved !== null ? Object.values(resolved)[0] : undefined;
    const logicalId = Array.isArray(getAtt) ? getAtt[0] : undefined;
    if (typeof logicalId !== 'string')
      throw new Error(`Not an attribute of a resource: ${JSON.stringify(resolved)}`);
    return logicalId;
  }
}
