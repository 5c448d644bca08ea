/**
 * The metrics middleware and `recordInvocation`: which EMF lines they print, and that the local
 * switches (`POWERTOOLS_DEV`, `POWERTOOLS_METRICS_DISABLED`) keep them quiet.
 *
 * The module builds its Metrics instances on import, as in Lambda, so each case imports a fresh copy
 * after setting the environment. With `POWERTOOLS_DEV=true` (set by the test setup) Powertools prints
 * through the global `console`, which the cases spy on.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorHandler, type RequestContext } from '../../functions/http/middleware';
import { logger } from '../../functions/http/service-context';
import { NotFoundError } from '../../lib/errors';
import { apiEvent, lambdaContext } from '../support/api-events';

const INVOKE_ROUTE = 'POST /v1/engines/{engine_id}';
const SECRET_BODY = '{"lyrics":["a secret line"]}';
const SECRET_TOKEN = 'st_credential_supersecret';

type Outcome = 'ok' | 'notFound' | 'crash';

/** Imports a fresh copy of the module under the given metric switches. */
async function loadObservability(env: { metricsDisabled?: string }) {
  vi.stubEnv('POWERTOOLS_DEV', 'true');
  vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'model-engine-api');
  // Lambda sets it; Powertools reports a cold start only for on-demand environments.
  vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', env.metricsDisabled);
  vi.resetModules();
  return import('../../functions/http/observability');
}

/** The chain of `api-handler.ts`, reduced to the middleware that decides the status. */
async function handlerWith(outcome: Outcome) {
  const { observability } = await import('../../functions/http/observability');
  return middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, RequestContext>()
    .use(observability())
    .use(errorHandler(logger))
    .handler(async () => {
      if (outcome === 'notFound') throw new NotFoundError('engineNotFound', 'No engine');
      if (outcome === 'crash') throw new Error('boom');
      return { statusCode: 200, body: '{}' };
    });
}

function invokeEvent(routeKey = INVOKE_ROUTE): APIGatewayProxyEventV2 {
  return apiEvent({
    routeKey,
    path: '/v1/engines/X.hikari',
    headers: { authorization: `Bearer ${SECRET_TOKEN}`, 'content-type': 'application/json' },
    body: SECRET_BODY,
  });
}

/** Every console line printed so far that is an EMF document. */
function emfLines(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls
    .map((args) => args[0])
    .filter((line): line is string => typeof line === 'string' && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Metric names and dimension sets of an EMF document. */
function describeEmf(emf: Record<string, unknown>): { namespace: string; names: string[]; dims: string[][] } {
  const directive = (
    emf._aws as {
      CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[];
    }
  ).CloudWatchMetrics[0];
  if (directive === undefined) throw new Error('EMF without a metric directive');
  return {
    namespace: directive.Namespace,
    names: directive.Metrics.map((metric) => metric.Name).sort(),
    dims: directive.Dimensions,
  };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('observability middleware', () => {
  it('counts a successful request under its operation, with a cold start on the first request', async () => {
    // Prepare
    await loadObservability({ metricsDisabled: 'false' });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const handler = await handlerWith('ok');

    // Act
    await handler(invokeEvent(), lambdaContext());
    await handler(invokeEvent(), lambdaContext());

    // Assess
    const lines = emfLines(log);
    const coldStarts = lines.filter((emf) => describeEmf(emf).names.includes('ColdStart'));
    const requests = lines.filter((emf) => describeEmf(emf).names.includes('Requests'));
    expect(coldStarts).toHaveLength(1);
    expect(requests).toHaveLength(2);
    for (const emf of requests) {
      expect(describeEmf(emf)).toEqual({
        namespace: 'ModelEngineApi',
        names: ['Errors4xx', 'Errors5xx', 'Requests'],
        dims: [['service', 'operation']],
      });
      expect(emf).toMatchObject({
        service: 'model-engine-api',
        operation: 'Engine.Invoke',
        Requests: 1,
        Errors4xx: 0,
        Errors5xx: 0,
      });
    }
  });

  it.each([
    {
      outcome: 'notFound' as const,
      routeKey: '$default',
      operation: 'unmatched',
      errors4xx: 1,
      errors5xx: 0,
    },
    {
      outcome: 'crash' as const,
      routeKey: INVOKE_ROUTE,
      operation: 'Engine.Invoke',
      errors4xx: 0,
      errors5xx: 1,
    },
  ])(
    'classes the final status of a $outcome request',
    async ({ outcome, routeKey, operation, errors4xx, errors5xx }) => {
      // Prepare
      await loadObservability({ metricsDisabled: 'false' });
      const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const handler = await handlerWith(outcome);

      // Act
      const result = await handler(invokeEvent(routeKey), lambdaContext());

      // Assess
      expect(result).toMatchObject({ statusCode: errors5xx === 1 ? 500 : 404 });
      const requests = emfLines(log).filter((emf) => describeEmf(emf).names.includes('Requests'));
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        operation,
        Requests: 1,
        Errors4xx: errors4xx,
        Errors5xx: errors5xx,
      });
    },
  );

  it('never prints the request body or the bearer token', async () => {
    // Prepare
    await loadObservability({ metricsDisabled: 'false' });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const handler = await handlerWith('ok');

    // Act
    await handler(invokeEvent(), lambdaContext());

    // Assess
    const printed = JSON.stringify(log.mock.calls);
    expect(emfLines(log).length).toBeGreaterThan(0);
    expect(printed).not.toContain('a secret line');
    expect(printed).not.toContain(SECRET_TOKEN);
  });

  it('prints nothing under POWERTOOLS_DEV alone, as in the local stack', async () => {
    // Prepare
    const { recordInvocation } = await loadObservability({ metricsDisabled: undefined });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const write = vi.spyOn(process.stdout, 'write');
    const handler = await handlerWith('ok');

    // Act
    await handler(invokeEvent(), lambdaContext());
    recordInvocation({ engineId: 'X.hikari', energyTotal: 23, renderMs: 1234 });

    // Assess
    expect(emfLines(log)).toEqual([]);
    expect(write.mock.calls.filter(([chunk]) => String(chunk).includes('"_aws"'))).toEqual([]);
  });
});

describe('recordInvocation', () => {
  it('prints Invocations, Energy and RenderTime by engine, apart from the request metrics', async () => {
    // Prepare
    const { recordInvocation } = await loadObservability({ metricsDisabled: 'false' });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // Act
    recordInvocation({
      engineId: '5A22C6DFE641404096876E9928EA1294.hikari',
      energyTotal: 23,
      renderMs: 1234.5,
    });

    // Assess
    const [emf, ...rest] = emfLines(log);
    expect(rest).toEqual([]);
    if (emf === undefined) throw new Error('no EMF line');
    expect(describeEmf(emf)).toEqual({
      namespace: 'ModelEngineApi',
      names: ['Energy', 'Invocations', 'RenderTime'],
      dims: [['service', 'engine']],
    });
    expect(emf).toMatchObject({
      engine: '5A22C6DFE641404096876E9928EA1294.hikari',
      Invocations: 1,
      Energy: 23,
      RenderTime: 1234.5,
    });
    const units = (emf._aws as { CloudWatchMetrics: { Metrics: { Name: string; Unit: string }[] }[] })
      .CloudWatchMetrics[0]?.Metrics;
    expect(units).toContainEqual({ Name: 'RenderTime', Unit: 'Milliseconds' });
  });
});
