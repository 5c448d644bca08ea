/**
 * The Engine.Invoke operation: find the engine, validate the body, run it, meter it exactly once.
 */
import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../config';
import { ServiceError } from '../errors';
import { usageDayOf } from '../metering/usage-days';
import type { UsageStore } from '../storage/usage-store';
import type { EngineCatalog } from './catalog';
import type { Energy } from './engine';
import { validateEngineRequest } from './request-validation';

/** Inputs of one invocation, already authenticated. */
export interface InvokeRequest {
  /** `engine_id` path parameter (unchecked). */
  readonly engineId: string;
  /** Parsed JSON body (untrusted). */
  readonly body: unknown;
  /** App of the token; usage is recorded against it. */
  readonly appId: string;
  /** Tracking id of the request. */
  readonly tid: string;
  /** When the request was received; picks the usage day. */
  readonly receivedAt: Date;
  /** Whether to return `refs`. */
  readonly showRefs: boolean;
}

/** Energy of one execution with its total, in energy units. */
export interface EnergyWithTotal extends Energy {
  readonly total: number;
}

/** Engine.Invoke response body. `usage` and `usages` hold the same object (api-notes B1). */
export interface InvokeResponse {
  readonly usage: { readonly energy: EnergyWithTotal };
  readonly usages: { readonly energy: EnergyWithTotal };
  readonly result: Readonly<Record<string, unknown>>;
  readonly refs?: Readonly<Record<string, unknown>>;
}

/** What {@link invokeEngine} needs. */
export interface InvokeDependencies {
  readonly catalog: EngineCatalog;
  readonly usageStore: UsageStore;
  readonly config: Pick<ServiceConfig, 'usageTimeZone' | 'executionRetentionDays'>;
}

/**
 * Runs Engine.Invoke. The result is returned only after its energy is recorded; a failed run records nothing.
 * @throws ValidationError for a malformed id or body, or input the engine cannot serve (4xx)
 * @throws NotFoundError for an unknown engine
 * @throws ServiceError `engineFailure` when the engine breaks
 * @throws StorageUnavailableError when the metering write fails (no result is returned)
 */
export async function invokeEngine(
  request: InvokeRequest,
  deps: InvokeDependencies,
): Promise<InvokeResponse> {
  const { entry, engine } = deps.catalog.get(request.engineId);
  const input = validateEngineRequest(engine, request.body);
  const uuid = randomUUID();

  let output: Awaited<ReturnType<typeof engine.run>>;
  try {
    output = await engine.run(input, { uuid, tid: request.tid });
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError('engineFailure', 'The engine failed while rendering the result', { cause: error });
  }

  const energy = entry.pricing(output.measures);
  await deps.usageStore.recordExecution({
    uuid,
    appId: request.appId,
    engineId: entry.engineId,
    usageDate: usageDayOf(request.receivedAt, deps.config.usageTimeZone),
    receivedAt: request.receivedAt,
    energy,
    tid: request.tid,
    expiresAtUnix:
      Math.floor(request.receivedAt.getTime() / 1000) + deps.config.executionRetentionDays * 86_400,
  });

  const usage = { energy: { ...energy, total: energy.request + energy.response + energy.service } };
  return {
    usage,
    usages: usage,
    result: output.result,
    ...(request.showRefs ? { refs: { engine_id: entry.engineId, tid: request.tid, ...output.refs } } : {}),
  };
}
