/**
 * Pins the synthesized template of the service stack: table, functions, IAM, routes, stage, outputs.
 * Bundling is skipped (`aws:cdk:bundling-stacks: []`); `cdk synth` bundles for real.
 */
import { readFileSync } from 'node:fs';
import { App, CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { copyIntoAsset } from '../../infra/lambda-function';
import { KUROMOJI_DICT_DIR, ServiceStack, type ServiceStackProps } from '../../infra/stack';

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
};

function synthesize(overrides: Partial<ServiceStackProps> = {}): { stack: ServiceStack; template: Template } {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new ServiceStack(app, 'ServiceStackTest', { ...settings, ...overrides });
  return { stack, template: Template.fromStack(stack) };
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
const BASIC_EXECUTION_ROLE = JSON.stringify({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
  ],
});

describe('ServiceStack', () => {
  const { stack, template } = synthesize();
  const tableId = logicalIdOf(stack, stack.table);
  const invokeId = logicalIdOf(stack, stack.invokeEngineFunction);
  const usagesId = logicalIdOf(stack, stack.listUsagesFunction);

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
      template.resourceCountIs('AWS::Logs::LogGroup', 2);
      for (const id of [invokeId, usagesId]) {
        const logGroup = at(resource(template, id), 'Properties', 'LoggingConfig', 'LogGroup', 'Ref');
        expect(typeof logGroup).toBe('string');
        expect(at(resource(template, String(logGroup)), 'Properties', 'RetentionInDays')).toBe(30);
      }
    });

    it('pass the table and the deployment settings to both handlers', () => {
      for (const id of [invokeId, usagesId]) {
        expect(environmentOf(template, id)).toMatchObject({
          TABLE_NAME: { Ref: tableId },
          JWT_AUDIENCE: 'api.test.example',
          JWT_MAX_LIFETIME_SECONDS: '3600',
          JWT_CLOCK_SKEW_SECONDS: '30',
          USAGE_TIME_ZONE: 'Asia/Tokyo',
          NODE_OPTIONS: '--enable-source-maps',
          POWERTOOLS_SERVICE_NAME: 'model-engine-api',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        });
      }
    });

    it('point only the invoke function at the shipped kuromoji dictionary and the execution retention', () => {
      expect(environmentOf(template, invokeId)).toMatchObject({
        KUROMOJI_DICT_DIR: '/var/task/kuromoji-dict',
        EXECUTION_RETENTION_DAYS: '90',
      });
      expect(environmentOf(template, usagesId)).not.toHaveProperty('KUROMOJI_DICT_DIR');
      expect(environmentOf(template, usagesId)).not.toHaveProperty('EXECUTION_RETENTION_DAYS');
    });

    it('copy the dictionary to the asset folder the environment names', () => {
      const commands = copyIntoAsset('node_modules/kuromoji/dict', 'kuromoji-dict')('/project', '/asset');
      expect(commands).toEqual(['cp -r "/project/node_modules/kuromoji/dict" "/asset/kuromoji-dict"']);
      expect(KUROMOJI_DICT_DIR).toBe('/var/task/kuromoji-dict');
    });
  });

  describe('IAM', () => {
    it('lets the invoke function read credentials and write the metering transaction, nothing more', () => {
      const statements = statementsOf(template, invokeId);
      expect(statements.flatMap((s) => s.actions).sort()).toEqual(
        ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', ...XRAY_ACTIONS].sort(),
      );
      expect(managedPoliciesOf(template, invokeId)).toEqual([BASIC_EXECUTION_ROLE]);
    });

    it('keeps the usage function read-only', () => {
      const statements = statementsOf(template, usagesId);
      expect(statements.flatMap((s) => s.actions).sort()).toEqual(
        ['dynamodb:GetItem', 'dynamodb:Query', ...XRAY_ACTIONS].sort(),
      );
      expect(managedPoliciesOf(template, usagesId)).toEqual([BASIC_EXECUTION_ROLE]);
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
  });

  describe('outputs', () => {
    it('give the API URL and the table name', () => {
      template.hasOutput('ApiUrl', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
      template.hasOutput('TableName', { Value: { Ref: tableId } });
    });
  });

  it('uses a named stage in the stage resource and the URL', () => {
    const named = synthesize({ stageName: 'prod' }).template;
    named.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: 'prod' });
    const url = JSON.stringify(at(named.toJSON(), 'Outputs', 'ApiUrl', 'Value'));
    expect(url).toContain('/prod');
  });
});
