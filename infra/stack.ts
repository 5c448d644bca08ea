/**
 * The service's one stack: the DynamoDB table, the two functions, and the HTTP API in front of them.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpStage, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { ENV } from '../lib/config';
import { GSI1_NAME, TABLE_ATTRIBUTES } from '../lib/storage/table-definition';
import { copyIntoAsset, LambdaFunction } from './lambda-function';

/** The repository root: esbuild's working directory and the base of the handler entry paths. */
const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Where the invoke function finds kuromoji's IPADIC files at run time (`/var/task` is the asset root). */
export const KUROMOJI_DICT_DIR = '/var/task/kuromoji-dict';

/** Name on every log line of both functions. */
const SERVICE_NAME = 'model-engine-api';

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
}

/** DynamoDB table, Engine.Invoke and Usages.List functions, and the HTTP API routing to them. */
export class ServiceStack extends Stack {
  /** The single service table. */
  readonly table: Table;
  /** `POST /v1/engines/{engine_id}` */
  readonly invokeEngineFunction: NodejsFunction;
  /** `GET /v1/apps/{app_id}/usages`, and every unmatched route (it answers with the 404 error body). */
  readonly listUsagesFunction: NodejsFunction;
  /** The HTTP API (payload format 2.0) with the two routes and `$default`. */
  readonly api: HttpApi;
  /** The API's only stage, auto-deployed and throttled. */
  readonly stage: HttpStage;

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

    // Both handlers authenticate requests, so both read the whole authentication configuration.
    const authEnvironment = {
      [ENV.jwtAudience]: props.jwtAudience,
      [ENV.jwtMaxLifetimeSeconds]: String(props.jwtMaxLifetimeSeconds),
      [ENV.jwtClockSkewSeconds]: String(props.jwtClockSkewSeconds),
      [ENV.usageTimeZone]: props.usageTimeZone,
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
        ...authEnvironment,
        [ENV.executionRetentionDays]: String(props.executionRetentionDays),
        [ENV.kuromojiDictDir]: KUROMOJI_DICT_DIR,
      },
      // esbuild cannot see the dictionary files kuromoji loads at run time.
      afterBundling: copyIntoAsset('node_modules/kuromoji/dict', 'kuromoji-dict'),
    });
    // Credential lookup; the metering transaction is one Put (execution) and one Update (aggregate).
    invokeEngine.bindTable(this.table, ['GetItem', 'PutItem', 'UpdateItem']);
    this.invokeEngineFunction = invokeEngine.function;

    const listUsages = new LambdaFunction(this, 'ListUsages', {
      entry: `${PROJECT_ROOT}/functions/list-usages.ts`,
      projectRoot: PROJECT_ROOT,
      description: 'Usages.List: reports the metered energy of an app; also answers unknown routes',
      memorySize: 256,
      timeout: Duration.seconds(10),
      serviceName: SERVICE_NAME,
      environment: authEnvironment,
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
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: props.stageName,
      autoDeploy: true,
      throttle: props.throttle,
    });

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the API', value: this.stage.url });
    new CfnOutput(this, 'TableName', { description: 'The service table', value: this.table.tableName });
  }
}
