/**
 * Metrics and tracing of the API handlers: Powertools Metrics (CloudWatch EMF on stdout) for
 * requests, error classes and per-engine invocations, and Powertools Tracer where a function opts in.
 *
 * What is emitted never carries a request body, a header or a token: metric values are counts and
 * durations, and dimension values come from fixed sets (operation names, catalog engine ids).
 *
 * Switches (Powertools 2.35): `POWERTOOLS_DEV=true` disables metric output (the local stack and the
 * tests set it); `POWERTOOLS_METRICS_DISABLED` overrides that either way. Tracing is active only
 * inside Lambda with X-Ray tracing on (`POWERTOOLS_TRACE_ENABLED=false` turns it off).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';

/** CloudWatch namespace of the service's own metrics. */
export const METRICS_NAMESPACE = 'ModelEngineApi';

/** Names of the metrics this module emits (namespace {@link METRICS_NAMESPACE}). */
export const METRIC_NAMES = {
  requests: 'Requests',
  errors4xx: 'Errors4xx',
  errors5xx: 'Errors5xx',
  invocations: 'Invocations',
  energy: 'Energy',
  renderTime: 'RenderTime',
  coldStart: 'ColdStart',
} as const;

/** `operation` dimension value of each route key; every other route (API Gateway's `$default`) is `unmatched`. */
export const OPERATIONS: Readonly<Record<string, string>> = {
  'POST /v1/engines/{engine_id}': 'Engine.Invoke',
  'GET /v1/apps/{app_id}/usages': 'Usages.List',
};

/**
 * Per-request metrics (dimensions `service`, `operation`), flushed once per invocation by
 * {@link observability}. The service name comes from `POWERTOOLS_SERVICE_NAME`.
 */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE });

/**
 * Per-engine metrics (dimensions `service`, `engine`). A second instance because one EMF line has
 * one dimension set: sharing {@link metrics} would split `Requests` by engine as well.
 */
const engineMetrics = new Metrics({ namespace: METRICS_NAMESPACE });

/** Options of {@link observability}. */
export interface ObservabilityOptions {
  /**
   * Tracer whose handler subsegment wraps each request (annotations `ColdStart` and `Service`,
   * error metadata; the response body is never captured). Omit it to leave tracing to Lambda's own
   * X-Ray segment: the Tracer pulls the X-Ray SDK (≈125 KB minified) into the bundle.
   */
  readonly tracer?: Tracer;
}

type HttpMiddleware<TContext extends Context> = MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  Error,
  TContext
>;

/**
 * The status the client receives: API Gateway answers 200 for a result without `statusCode`, and
 * an error nobody turned into a response ends as a 500.
 */
function statusOf(response: unknown, failed: boolean): number {
  if (typeof response === 'object' && response !== null && 'statusCode' in response) {
    return typeof response.statusCode === 'number' ? response.statusCode : 500;
  }
  if (response === undefined || response === null) return failed ? 500 : 200;
  return 200;
}

/** Adds `Requests`, `Errors4xx` and `Errors5xx` (0 or 1 each, so `Average` is a rate) for one request. */
function countRequest(event: APIGatewayProxyEventV2 | undefined, status: number): void {
  const routeKey = event?.routeKey;
  const operation = (routeKey !== undefined && OPERATIONS[routeKey]) || 'unmatched';
  metrics.addDimension('operation', operation);
  metrics.addMetric(METRIC_NAMES.requests, MetricUnit.Count, 1);
  metrics.addMetric(METRIC_NAMES.errors4xx, MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
  metrics.addMetric(METRIC_NAMES.errors5xx, MetricUnit.Count, status >= 500 ? 1 : 0);
}

/**
 * Metrics (and, with a tracer, tracing) for every request. Use it first in the chain, before the
 * error handler: its `after`/`onError` then run last and see the final response status.
 *
 * Per request it emits `Requests`, `Errors4xx` and `Errors5xx` with dimension `operation`, plus
 * `ColdStart` (dimension `function_name`) on a container's first request.
 */
export function observability<TContext extends Context = Context>(
  options: ObservabilityOptions = {},
): HttpMiddleware<TContext>[] {
  // Array order: `before` runs first to last, `after`/`onError` last to first, so the request is
  // counted, then the metrics are flushed, then the handler subsegment is closed.
  const chain: HttpMiddleware<TContext>[] = [];
  if (options.tracer !== undefined) {
    chain.push(captureLambdaHandler(options.tracer, { captureResponse: false }));
  }
  chain.push(logMetrics(metrics, { captureColdStartMetric: true }));
  chain.push({
    after: (request) => countRequest(request.event, statusOf(request.response, false)),
    onError: (request) => countRequest(request.event, statusOf(request.response, true)),
  });
  return chain;
}

/** One finished engine execution, as {@link recordInvocation} reports it. */
export interface InvocationFacts {
  /** Catalog engine id (never unchecked input: it becomes a dimension value). */
  readonly engineId: string;
  /** Total energy metered for the execution, in energy units. */
  readonly energyTotal: number;
  /** Time the engine took to render, in milliseconds. */
  readonly renderMs: number;
}

/**
 * Emits `Invocations` (1), `Energy` (energy units) and `RenderTime` (ms) with dimension `engine`,
 * as one EMF line, right away. Call it once per metered execution, not for idempotent replays.
 */
export function recordInvocation(facts: InvocationFacts): void {
  engineMetrics.addDimension('engine', facts.engineId);
  engineMetrics.addMetric(METRIC_NAMES.invocations, MetricUnit.Count, 1);
  engineMetrics.addMetric(METRIC_NAMES.energy, MetricUnit.Count, facts.energyTotal);
  engineMetrics.addMetric(METRIC_NAMES.renderTime, MetricUnit.Milliseconds, facts.renderMs);
  engineMetrics.publishStoredMetrics();
}
