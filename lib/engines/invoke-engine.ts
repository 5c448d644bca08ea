/**
 * The Engine.Invoke operation: find the engine, validate the body, run it, meter it exactly once.
 * With an `Idempotency-Key`, a retry of the same request replays the first response instead of
 * running and metering again.
 */
import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../config';
import { ServiceError, StorageUnavailableError } from '../errors';
import {
  claimIdempotencyKey,
  type IdempotencyDependencies,
  type IdempotencyLock,
} from '../idempotency/idempotency-guard';
import { parseIdempotencyKey } from '../idempotency/idempotency-key';
import { requestFingerprint } from '../idempotency/request-fingerprint';
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
  /** `Idempotency-Key` header as received (unchecked); `undefined` when absent. */
  readonly idempotencyKey?: string | undefined;
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

/** What {@link invokeEngine} returns. */
export interface InvokeOutcome {
  readonly response: InvokeResponse;
  /** True when the response is the stored one of an earlier request with the same `Idempotency-Key`. */
  readonly replayed: boolean;
  /** Wall time of `engine.run`, in ms; undefined for a replay (nothing was rendered). */
  readonly renderMs: number | undefined;
}

/** What {@link invokeEngine} needs. */
export interface InvokeDependencies {
  readonly catalog: Pick<EngineCatalog, 'get'>;
  readonly usageStore: UsageStore;
  readonly config: Pick<ServiceConfig, 'usageTimeZone' | 'executionRetentionDays'>;
  /** Needed for requests with an `Idempotency-Key`; without it such a request is an internal error. */
  readonly idempotency?: IdempotencyDependencies | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toEnergy(value: unknown): EnergyWithTotal | undefined {
  if (!isRecord(value)) return undefined;
  const { request, response, service, total } = value;
  if (
    typeof request !== 'number' ||
    typeof response !== 'number' ||
    typeof service !== 'number' ||
    typeof total !== 'number'
  ) {
    return undefined;
  }
  return { request, response, service, total };
}

/**
 * Narrows a stored response body back into an {@link InvokeResponse}.
 * @throws ServiceError `internalError` when the stored text is not a response body
 */
function parseStoredResponse(text: string): InvokeResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ServiceError('internalError', 'A stored idempotent response is not JSON', { cause: error });
  }
  if (isRecord(parsed) && isRecord(parsed.usage) && isRecord(parsed.usages) && isRecord(parsed.result)) {
    const usageEnergy = toEnergy(parsed.usage.energy);
    const usagesEnergy = toEnergy(parsed.usages.energy);
    const { refs } = parsed;
    if (usageEnergy !== undefined && usagesEnergy !== undefined && (refs === undefined || isRecord(refs))) {
      return {
        usage: { energy: usageEnergy },
        usages: { energy: usagesEnergy },
        result: parsed.result,
        ...(refs === undefined ? {} : { refs }),
      };
    }
  }
  throw new ServiceError('internalError', 'A stored idempotent response does not have the response shape');
}

/**
 * Runs Engine.Invoke. The result is returned only after its energy is recorded; a failed run records nothing.
 *
 * With an `Idempotency-Key` the body is validated first, then the key is claimed: a completed key
 * with the same request replays the stored response (nothing is run or recorded); otherwise the
 * engine runs under the key's lock, and the metering transaction also completes the key. A failed
 * run or write releases the lock, so the same key can be retried at once.
 * @throws ValidationError for a malformed id, body or `Idempotency-Key`, or input the engine cannot serve (4xx)
 * @throws NotFoundError for an unknown engine
 * @throws ServiceError `idempotencyKeyReused` (409) when the key was used with another request in its lifetime
 * @throws ServiceError `requestInProgress` (409, with `retryAfterSeconds`) when a request with the key is running
 * @throws ServiceError `engineFailure` when the engine breaks
 * @throws StorageUnavailableError when the metering write or the idempotency storage fails (no result is returned)
 */
export async function invokeEngine(request: InvokeRequest, deps: InvokeDependencies): Promise<InvokeOutcome> {
  const key = parseIdempotencyKey(request.idempotencyKey);
  const { entry, engine } = deps.catalog.get(request.engineId);
  const input = validateEngineRequest(engine, request.body);
  if (key === undefined) {
    return { ...(await execute(request, deps, { entry, engine, input })), replayed: false };
  }

  const idempotency = deps.idempotency;
  if (idempotency === undefined) {
    throw new ServiceError('internalError', 'Idempotent invocation is not configured in this deployment');
  }
  const claim = await claimIdempotencyKey(
    {
      appId: request.appId,
      key,
      requestHash: requestFingerprint({
        engineId: entry.engineId,
        showRefs: request.showRefs,
        body: request.body,
      }),
    },
    idempotency,
  );
  if (claim.kind === 'replay') {
    return { response: parseStoredResponse(claim.body), replayed: true, renderMs: undefined };
  }
  try {
    return { ...(await execute(request, deps, { entry, engine, input }, claim.lock)), replayed: false };
  } catch (error) {
    await claim.lock.release();
    throw error;
  }
}

/** Runs the engine and meters the execution; with a lock, the metering write also completes its key. */
async function execute(
  request: InvokeRequest,
  deps: InvokeDependencies,
  target: ReturnType<InvokeDependencies['catalog']['get']> & { input: Record<string, unknown> },
  lock?: IdempotencyLock,
): Promise<{ response: InvokeResponse; renderMs: number }> {
  const { entry, engine, input } = target;
  const uuid = randomUUID();

  let output: Awaited<ReturnType<typeof engine.run>>;
  let renderMs: number;
  try {
    const started = performance.now();
    output = await engine.run(input, { uuid, tid: request.tid });
    renderMs = performance.now() - started;
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError('engineFailure', 'The engine failed while rendering the result', { cause: error });
  }

  const energy = entry.pricing(output.measures);
  // Fixed member order, so a replayed response (rebuilt from its JSON) serialises byte for byte alike.
  const usage = {
    energy: {
      request: energy.request,
      response: energy.response,
      service: energy.service,
      total: energy.request + energy.response + energy.service,
    },
  };
  const response: InvokeResponse = {
    usage,
    usages: usage,
    result: output.result,
    ...(request.showRefs ? { refs: { engine_id: entry.engineId, tid: request.tid, ...output.refs } } : {}),
  };
  const completion =
    lock === undefined ? undefined : await lock.prepareCompletion(uuid, JSON.stringify(response));

  const record = deps.usageStore.recordExecution(
    {
      uuid,
      appId: request.appId,
      engineId: entry.engineId,
      usageDate: usageDayOf(request.receivedAt, deps.config.usageTimeZone),
      receivedAt: request.receivedAt,
      energy,
      tid: request.tid,
      expiresAtUnix:
        Math.floor(request.receivedAt.getTime() / 1000) + deps.config.executionRetentionDays * 86_400,
    },
    { idempotency: completion },
  );
  try {
    await record;
  } catch (error) {
    // Every answer to an applied write can be lost (time-outs on all attempts): the run is then
    // metered, so it must be delivered. One consistent read tells; if that fails too, report 503.
    if (!(error instanceof StorageUnavailableError) || !(await wasRecordedAfterAll(deps.usageStore, uuid)))
      throw error;
  }
  return { response, renderMs };
}

async function wasRecordedAfterAll(store: UsageStore, uuid: string): Promise<boolean> {
  try {
    return await store.wasRecorded(uuid);
  } catch {
    return false;
  }
}
