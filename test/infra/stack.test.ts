/**
 * Pins the synthesized template of the service stack: table, result bucket, functions, IAM, routes,
 * stage and access log, alarms, outputs, and cdk-nag's verdict. Bundling is skipped
 * (`aws:cdk:bundling-stacks: []`); `bundle-size.test.ts` bundles for real.
 */
import { readFileSync } from 'node:fs';
import { App, CfnElement, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { copyIntoAsset, copyPackageIntoAsset } from '../../infra/lambda-function';
import { ContextError, settingsFromContext } from '../../infra/settings';
import {
  ACCESS_LOG_FIELDS,
  KUROMOJI_DICT_DIR,
  ServiceStack,
  type ServiceStackProps,
} from '../../infra/stack';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a path of keys through parsed JSON; `undefined` when any step is missing. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return current;
}

function asArray(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The feature flags and other context of `cdk.json`, so the test app behaves like `cdk synth`. */
function cdkJsonContext(): JsonObject {
  const cdkJson: unknown = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  const context = at(cdkJson, 'context');
  if (!isObject(context)) throw new Error('cdk.json has no context object');
  return context;
}

const settings: ServiceStackProps = {
  jwtAudience: 'api.test.example',
  jwtMaxLifetimeSeconds: 3600,
  jwtClockSkewSeconds: 30,
  usageTimeZone: 'Asia/Tokyo',
  executionRetentionDays: 90,
  stageName: '$default',
  throttle: { rateLimit: 7, burstLimit: 11 },
  rateLimitPerMinute: 33,
  dynamodbTimeoutMs: 1500,
  idempotencyTtlSeconds: 86_400,
};

function testApp(context: JsonObject = {}): App {
  return new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context } });
}

/**
 * Synthesizes the stack with cdk-nag's AwsSolutions checks on, as `infra/app.ts` does: an
 * unacknowledged finding makes this throw, so every test below fails on it.
 */
function synthesize(overrides: Partial<ServiceStackProps> = {}): {
  app: App;
  stack: ServiceStack;
  template: Template;
} {
  const app = testApp();
  const stack = new ServiceStack(app, 'ServiceStackTest', { ...settings, ...overrides });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, template: Template.fromStack(stack) };
}

/** Logical id of an L2 construct's CloudFormation resource. */
function logicalIdOf(stack: ServiceStack, construct: IConstruct): string {
  const element = construct.node.defaultChild;
  if (!(element instanceof CfnElement))
    throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return stack.getLogicalId(element);
}

function resource(template: Template, logicalId: string): JsonObject {
  const found = at(template.toJSON(), 'Resources', logicalId);
  if (!isObject(found)) throw new Error(`No resource ${logicalId}`);
  return found;
}

function environmentOf(template: Template, functionId: string): JsonObject {
  const variables = at(resource(template, functionId), 'Properties', 'Environment', 'Variables');
  return isObject(variables) ? variables : {};
}

interface Statement {
  readonly effect: unknown;
  readonly actions: string[];
  readonly resources: unknown[];
}

/** Every statement of every inline policy attached to the function's role. */
function statementsOf(template: Template, functionId: string): Statement[] {
  const roleArn = asArray(at(resource(template, functionId), 'Properties', 'Role', 'Fn::GetAtt'));
  const roleId = roleArn[0];
  if (typeof roleId !== 'string') throw new Error(`${functionId} has no role of this stack`);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => asArray(at(policy, 'Properties', 'Roles')).some((role) => at(role, 'Ref') === roleId))
    .flatMap((policy) => asArray(at(policy, 'Properties', 'PolicyDocument', 'Statement')))
    .map((statement) => ({
      effect: at(statement, 'Effect'),
      actions: asArray(at(statement, 'Action')).filter((action) => typeof action === 'string'),
      resources: asArray(at(statement, 'Resource')),
    }));
}

function managedPoliciesOf(template: Template, functionId: string): string[] {
  const roleId = asArray(at(resource(template, functionId), 'Properties', 'Role', 'Fn::GetAtt'))[0];
  if (typeof roleId !== 'string') throw new Error(`${functionId} has no role of this stack`);
  return asArray(at(resource(template, roleId), 'Properties', 'ManagedPolicyArns')).map((arn) =>
    JSON.stringify(arn),
  );
}

/** The function a route ends up invoking, through its integration. */
function functionOfRoute(template: Template, routeKey: string): unknown {
  const routes = Object.values(
    template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } }),
  );
  expect(routes).toHaveLength(1);
  const target = asArray(at(routes[0], 'Properties', 'Target', 'Fn::Join'));
  const integrationId = at(asArray(target[1])[1], 'Ref');
  if (typeof integrationId !== 'string') throw new Error(`Route ${routeKey} has no integration`);
  const integration = resource(template, integrationId);
  expect(at(integration, 'Properties', 'IntegrationType')).toBe('AWS_PROXY');
  expect(at(integration, 'Properties', 'PayloadFormatVersion')).toBe('2.0');
  return asArray(at(integration, 'Properties', 'IntegrationUri', 'Fn::GetAtt'))[0];
}

const XRAY_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];

/** The statement granting a given action, which must exist exactly once. */
function statementWith(statements: Statement[], action: string): Statement {
  const found = statements.filter((statement) => statement.actions.includes(action));
  expect(found, action).toHaveLength(1);
  const [statement] = found;
  if (statement === undefined) throw new Error(`No statement grants ${action}`);
  return statement;
}

/** Alarms whose metric (or one metric of their math expression) has this name. */
function alarmsOnMetric(template: Template, metricName: string): JsonObject[] {
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter((alarm) => {
    const properties = at(alarm, 'Properties');
    if (at(properties, 'MetricName') === metricName) return true;
    return asArray(at(properties, 'Metrics')).some(
      (query) => at(query, 'MetricStat', 'Metric', 'MetricName') === metricName,
    );
  });
}

describe('ServiceStack', () => {
  const { app, stack, template } = synthesize();
  const tableId = logicalIdOf(stack, stack.table);
  const bucketId = logicalIdOf(stack, stack.resultBucket);
  const invokeId = logicalIdOf(stack, stack.invokeEngineFunction);
  const usagesId = logicalIdOf(stack, stack.listUsagesFunction);
  const apiId = logicalIdOf(stack, stack.api);
  const accessLogsId = logicalIdOf(stack, stack.accessLogGroup);

  describe('table', () => {
    it('is the only table, keyed by pk/sk, with gsi1 projecting all attributes', () => {
      template.resourceCountIs('AWS::DynamoDB::Table', 1);
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'gsi1pk', AttributeType: 'S' },
          { AttributeName: 'gsi1sk', AttributeType: 'S' },
        ]),
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      });
    });

    it('is on-demand, expires items through ttl, has point-in-time recovery and AWS-managed encryption', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        ProvisionedThroughput: Match.absent(),
      });
    });

    it('is retained when the stack or the resource goes away, and has no hard-coded name', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { TableName: Match.absent() },
      });
    });
  });

  describe('result bucket', () => {
    it('is the only bucket: SSE-S3, all public access blocked, unversioned, no hard-coded name', () => {
      template.resourceCountIs('AWS::S3::Bucket', 1);
      expect(at(resource(template, bucketId), 'Properties')).toEqual({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LifecycleConfiguration: {
          Rules: [
            {
              Id: 'expire-results',
              Status: 'Enabled',
              ExpirationInDays: 2,
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            },
          ],
        },
      });
    });

    it('denies every request that does not use TLS', () => {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('is retained with the stack, like the table', () => {
      template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    });

    it('keeps results a day longer than the idempotency window', () => {
      const longer = synthesize({ idempotencyTtlSeconds: 3 * 86_400 }).template;
      longer.hasResourceProperties('AWS::S3::Bucket', {
        LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 4 })] },
      });
    });
  });

  describe('functions', () => {
    it('run Node.js 22 on arm64 with active tracing, one ESM bundle each', () => {
      template.resourceCountIs('AWS::Lambda::Function', 2);
      for (const id of [invokeId, usagesId]) {
        expect(at(resource(template, id), 'Properties')).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          TracingConfig: { Mode: 'Active' },
        });
      }
    });

    it('give the invoke function room for kuromoji and the usage function a small footprint', () => {
      expect(at(resource(template, invokeId), 'Properties')).toMatchObject({ MemorySize: 1536, Timeout: 28 });
      expect(at(resource(template, usagesId), 'Properties')).toMatchObject({ MemorySize: 256, Timeout: 10 });
    });

    it('log to their own log group kept one month', () => {
      for (const id of [invokeId, usagesId]) {
        const logGroup = at(resource(template, id), 'Properties', 'LoggingConfig', 'LogGroup', 'Ref');
        expect(typeof logGroup).toBe('string');
        expect(at(resource(template, String(logGroup)), 'Properties', 'RetentionInDays')).toBe(30);
      }
    });

    it('pass the table and the shared settings to both handlers', () => {
      for (const id of [invokeId, usagesId]) {
        expect(environmentOf(template, id)).toMatchObject({
          TABLE_NAME: { Ref: tableId },
          JWT_AUDIENCE: 'api.test.example',
          JWT_MAX_LIFETIME_SECONDS: '3600',
          JWT_CLOCK_SKEW_SECONDS: '30',
          USAGE_TIME_ZONE: 'Asia/Tokyo',
          DYNAMODB_TIMEOUT_MS: '1500',
          NODE_OPTIONS: '--enable-source-maps',
          POWERTOOLS_SERVICE_NAME: 'model-engine-api',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        });
      }
    });

    it('give only the invoke function the dictionary, retention, rate limit, idempotency window and bucket', () => {
      const invokeOnly = {
        KUROMOJI_DICT_DIR: '/var/task/kuromoji-dict',
        EXECUTION_RETENTION_DAYS: '90',
        RATE_LIMIT_PER_MINUTE: '33',
        IDEMPOTENCY_TTL_SECONDS: '86400',
        RESULT_BUCKET_NAME: { Ref: bucketId },
      };
      expect(environmentOf(template, invokeId)).toMatchObject(invokeOnly);
      for (const name of Object.keys(invokeOnly)) {
        expect(environmentOf(template, usagesId)).not.toHaveProperty(name);
      }
    });

    it('copy the kuromoji dictionary to the asset folder the environment names', () => {
      const commands = copyIntoAsset('node_modules/kuromoji/dict', 'kuromoji-dict')('/project', '/asset');
      expect(commands).toEqual(['cp -r "/project/node_modules/kuromoji/dict" "/asset/kuromoji-dict"']);
      expect(KUROMOJI_DICT_DIR).toBe('/var/task/kuromoji-dict');
    });

    it('copy a shipped package to the asset node_modules, scoped names included', () => {
      expect(copyPackageIntoAsset('cmu-pronouncing-dictionary')('/project', '/asset')).toEqual([
        'mkdir -p "/asset/node_modules/."',
        'cp -r "/project/node_modules/cmu-pronouncing-dictionary" "/asset/node_modules/cmu-pronouncing-dictionary"',
      ]);
      expect(copyPackageIntoAsset('@scope/data')('/project', '/asset')[0]).toBe(
        'mkdir -p "/asset/node_modules/@scope"',
      );
    });
  });

  describe('IAM', () => {
    it('lets the invoke function use the table, the results prefix, its log group and X-Ray, nothing more', () => {
      const statements = statementsOf(template, invokeId);
      expect(statements.flatMap((s) => s.actions).sort()).toEqual(
        [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          's3:GetObject',
          's3:PutObject',
          ...LOG_ACTIONS,
          ...XRAY_ACTIONS,
        ].sort(),
      );
      expect(statementWith(statements, 's3:PutObject')).toEqual({
        effect: 'Allow',
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/results/*']] }],
      });
      expect(managedPoliciesOf(template, invokeId)).toEqual([]);
    });

    it('keeps the usage function read-only', () => {
      const statements = statementsOf(template, usagesId);
      expect(statements.flatMap((s) => s.actions).sort()).toEqual(
        ['dynamodb:GetItem', 'dynamodb:Query', ...LOG_ACTIONS, ...XRAY_ACTIONS].sort(),
      );
      expect(managedPoliciesOf(template, usagesId)).toEqual([]);
    });

    it('grants table actions on the base table only, never on its indexes or on *', () => {
      for (const id of [invokeId, usagesId]) {
        const tableStatements = statementsOf(template, id).filter((s) =>
          s.actions.some((action) => action.startsWith('dynamodb:')),
        );
        expect(tableStatements.length).toBeGreaterThan(0);
        for (const statement of tableStatements) {
          expect(statement.effect).toBe('Allow');
          expect(statement.resources).toEqual([{ 'Fn::GetAtt': [tableId, 'Arn'] }]);
        }
      }
    });

    it('writes logs to the function own log group only, instead of AWSLambdaBasicExecutionRole', () => {
      for (const id of [invokeId, usagesId]) {
        const logGroup = at(resource(template, id), 'Properties', 'LoggingConfig', 'LogGroup', 'Ref');
        expect(statementWith(statementsOf(template, id), 'logs:PutLogEvents').resources).toEqual([
          { 'Fn::GetAtt': [logGroup, 'Arn'] },
        ]);
      }
    });

    it('uses Resource "*" for the X-Ray actions only (the acknowledged IAM5 finding)', () => {
      for (const id of [invokeId, usagesId]) {
        const wildcard = statementsOf(template, id).filter((s) => s.resources.includes('*'));
        expect(wildcard.flatMap((s) => s.actions).sort()).toEqual(XRAY_ACTIONS);
      }
    });
  });

  describe('HTTP API', () => {
    it('has exactly the two routes and $default', () => {
      template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
      const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route'))
        .map((route) => at(route, 'Properties', 'RouteKey'))
        .sort();
      expect(routeKeys).toEqual(['$default', 'GET /v1/apps/{app_id}/usages', 'POST /v1/engines/{engine_id}']);
    });

    it('routes invocations to the invoke function and usages and unmatched paths to the usage function', () => {
      expect(functionOfRoute(template, 'POST /v1/engines/{engine_id}')).toBe(invokeId);
      expect(functionOfRoute(template, 'GET /v1/apps/{app_id}/usages')).toBe(usagesId);
      expect(functionOfRoute(template, '$default')).toBe(usagesId);
    });

    it('lets API Gateway invoke each function', () => {
      for (const id of [invokeId, usagesId]) {
        template.hasResourceProperties('AWS::Lambda::Permission', {
          Action: 'lambda:InvokeFunction',
          Principal: 'apigateway.amazonaws.com',
          FunctionName: { 'Fn::GetAtt': [id, 'Arn'] },
        });
      }
    });

    it('deploys one auto-deployed, throttled stage', () => {
      template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 11 },
      });
    });

    it('writes one JSON access log line per request to its own log group, without headers or bodies', () => {
      const settings = at(
        Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0],
        'Properties',
        'AccessLogSettings',
      );
      expect(at(settings, 'DestinationArn')).toEqual({ 'Fn::GetAtt': [accessLogsId, 'Arn'] });
      const format: unknown = JSON.parse(String(at(settings, 'Format')));
      expect(format).toEqual(ACCESS_LOG_FIELDS);
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        routeKey: '$context.routeKey',
        status: '$context.status',
        latency: '$context.responseLatency',
        integrationError: '$context.integrationErrorMessage',
      });
      expect(JSON.stringify(format)).not.toMatch(/header|body|querystring|authorizer/i);
    });
  });

  describe('logs', () => {
    it('keep every log group one month: both functions and the access log', () => {
      const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
      expect(groups).toHaveLength(3);
      for (const group of groups) expect(at(group, 'Properties', 'RetentionInDays')).toBe(30);
      expect(at(resource(template, accessLogsId), 'Properties', 'RetentionInDays')).toBe(30);
    });
  });

  describe('alarms', () => {
    it('watch the 5xx share of API requests: above 1 % over 5 minutes', () => {
      const [alarm, ...others] = alarmsOnMetric(template, '5xx');
      expect(others).toEqual([]);
      const properties = at(alarm, 'Properties');
      expect(properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanThreshold' });
      const queries = asArray(at(properties, 'Metrics'));
      expect(queries.find((query) => at(query, 'ReturnData') !== false)).toMatchObject({
        Expression: '100 * FILL(serverErrors, 0) / requests',
      });
      const apiDimensions = [
        { Name: 'ApiId', Value: { Ref: apiId } },
        { Name: 'Stage', Value: '$default' },
      ];
      for (const [id, metricName] of [
        ['serverErrors', '5xx'],
        ['requests', 'Count'],
      ]) {
        expect(queries.find((query) => at(query, 'Id') === id)).toMatchObject({
          MetricStat: {
            Metric: { Namespace: 'AWS/ApiGateway', MetricName: metricName, Dimensions: apiDimensions },
            Period: 300,
            Stat: 'Sum',
          },
        });
      }
    });

    it('watch Lambda errors and throttles of each function', () => {
      for (const metricName of ['Errors', 'Throttles']) {
        const watched = alarmsOnMetric(template, metricName).map((alarm) => {
          expect(at(alarm, 'Properties')).toMatchObject({
            Namespace: 'AWS/Lambda',
            Statistic: 'Sum',
            Period: 300,
            Threshold: 1,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          });
          return at(asArray(at(alarm, 'Properties', 'Dimensions'))[0], 'Value', 'Ref');
        });
        expect(watched.sort()).toEqual([invokeId, usagesId].sort());
      }
    });

    it('watch throttled requests and system errors of the table, for every operation the functions send', () => {
      for (const metricName of ['ThrottledRequests', 'SystemErrors']) {
        const [alarm, ...others] = alarmsOnMetric(template, metricName);
        expect(others).toEqual([]);
        const operations = asArray(at(alarm, 'Properties', 'Metrics'))
          .filter((query) => at(query, 'MetricStat') !== undefined)
          .map((query) => {
            const metric = at(query, 'MetricStat', 'Metric');
            expect(metric).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metricName });
            const dimensions = asArray(at(metric, 'Dimensions'));
            expect(dimensions).toContainEqual({ Name: 'TableName', Value: { Ref: tableId } });
            return at(
              dimensions.find((d) => at(d, 'Name') === 'Operation'),
              'Value',
            );
          });
        expect(operations.sort()).toEqual([
          'GetItem',
          'PutItem',
          'Query',
          'TransactWriteItems',
          'UpdateItem',
        ]);
      }
    });

    it('are the only alarms, and notify nobody when no topic is configured', () => {
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
      expect(alarms).toHaveLength(7);
      for (const alarm of alarms) {
        expect(at(alarm, 'Properties', 'AlarmActions')).toBeUndefined();
        expect(at(alarm, 'Properties', 'TreatMissingData')).toBe('notBreaching');
      }
    });

    it('notify the configured SNS topic of alarms and recoveries', () => {
      const topicArn = 'arn:aws:sns:eu-west-1:123456789012:ops-alerts';
      const withTopic = synthesize({ alarmTopicArn: topicArn }).template;
      const alarms = Object.values(withTopic.findResources('AWS::CloudWatch::Alarm'));
      expect(alarms).toHaveLength(7);
      for (const alarm of alarms) {
        expect(at(alarm, 'Properties')).toMatchObject({ AlarmActions: [topicArn], OKActions: [topicArn] });
      }
    });
  });

  describe('cdk-nag', () => {
    it('finds nothing unacknowledged in the stack', () => {
      const report = new AwsSolutionsChecks(app).validateScope(app);
      const findings = report.violations.map(
        (violation) =>
          `${violation.ruleName} at ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`,
      );
      expect(findings).toEqual([]);
    });

    it('is live: an unacknowledged finding fails the synthesis', () => {
      const app = testApp();
      const stack = new ServiceStack(app, 'ServiceStackNagProbe', settings);
      new Bucket(stack, 'UnloggedBucket', { enforceSSL: true });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      expect(() => Template.fromStack(stack)).toThrow(/AwsSolutions-S1/);
    });
  });

  describe('outputs', () => {
    it('give the API URL, the table name and the result bucket name', () => {
      template.hasOutput('ApiUrl', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
      template.hasOutput('TableName', { Value: { Ref: tableId } });
      template.hasOutput('ResultBucketName', { Value: { Ref: bucketId } });
    });
  });

  it('uses a named stage in the stage resource, the URL and the 5xx alarm', () => {
    const named = synthesize({ stageName: 'prod' }).template;
    named.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: 'prod' });
    const url = JSON.stringify(at(named.toJSON(), 'Outputs', 'ApiUrl', 'Value'));
    expect(url).toContain('/prod');
    const [alarm] = alarmsOnMetric(named, '5xx');
    expect(JSON.stringify(at(alarm, 'Properties', 'Metrics'))).toContain('{"Name":"Stage","Value":"prod"}');
  });
});

describe('settingsFromContext', () => {
  it('fills in the documented defaults', () => {
    expect(settingsFromContext(testApp())).toMatchObject({
      jwtAudience: 'api.example.com',
      stageName: '$default',
      rateLimitPerMinute: 120,
      dynamodbTimeoutMs: 3000,
      idempotencyTtlSeconds: 86_400,
      alarmTopicArn: undefined,
    });
  });

  it('reads `-c key=value` strings, and they reach the functions environment', () => {
    // Prepare
    const app = testApp({
      audience: 'api.prod.example',
      stage: 'prod',
      rateLimitPerMinute: '0',
      dynamodbTimeoutMs: '2500',
      idempotencyTtlSeconds: '7200',
      alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:alerts',
    });

    // Act
    const props = settingsFromContext(app);
    const stack = new ServiceStack(app, 'FromContext', props);
    const template = Template.fromStack(stack);

    // Assess
    expect(props).toMatchObject({
      jwtAudience: 'api.prod.example',
      stageName: 'prod',
      rateLimitPerMinute: 0,
      dynamodbTimeoutMs: 2500,
      idempotencyTtlSeconds: 7200,
      alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:alerts',
    });
    expect(environmentOf(template, logicalIdOf(stack, stack.invokeEngineFunction))).toMatchObject({
      JWT_AUDIENCE: 'api.prod.example',
      RATE_LIMIT_PER_MINUTE: '0',
      DYNAMODB_TIMEOUT_MS: '2500',
      IDEMPOTENCY_TTL_SECONDS: '7200',
    });
    expect(environmentOf(template, logicalIdOf(stack, stack.listUsagesFunction))).toMatchObject({
      JWT_AUDIENCE: 'api.prod.example',
      DYNAMODB_TIMEOUT_MS: '2500',
    });
  });

  it.each([
    ['rateLimitPerMinute', '-1'],
    ['dynamodbTimeoutMs', '0'],
    ['idempotencyTtlSeconds', 'a day'],
    ['alarmTopicArn', 'ops-alerts'],
    ['stage', 'prod/v1'],
  ])('rejects %s = %j before building anything', (key, value) => {
    expect(() => settingsFromContext(testApp({ [key]: value }))).toThrow(ContextError);
  });
});
