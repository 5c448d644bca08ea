/**
 * Checks engine request bodies against the engine's JSON Schema (Ajv), applying schema defaults.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ValidationError } from '../errors';
import type { Engine } from './engine';

/** Deepest accepted nesting of arrays and objects in a body (no engine needs more than a few). */
export const MAX_BODY_DEPTH = 32;

/** Nesting depth of a JSON value, counted without recursion (a hostile body must not overflow the stack). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_DEPTH) return deepest;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
const validators = new WeakMap<Engine, ValidateFunction>();

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'body' : `body${error.instancePath.replaceAll('/', '.')}`;
  if (error.keyword === 'additionalProperties') {
    return `${where} has unknown field "${String(error.params.additionalProperty)}"`;
  }
  if (error.keyword === 'required')
    return `${where} is missing required field "${String(error.params.missingProperty)}"`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/**
 * Validates a parsed JSON body for an engine and returns a copy with defaults applied.
 * @param body - the parsed body (untrusted)
 * @throws ValidationError `invalidRequest` when the body is not a JSON object or nests deeper than {@link MAX_BODY_DEPTH},
 *   `invalidEngineInput` listing every schema violation otherwise
 */
export function validateEngineRequest(engine: Engine, body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('invalidRequest', 'The request body must be a JSON object');
  }
  if (depthOf(body) > MAX_BODY_DEPTH) {
    throw new ValidationError(
      'invalidRequest',
      `The request body is nested deeper than ${MAX_BODY_DEPTH} levels`,
    );
  }
  let validate = validators.get(engine);
  if (validate === undefined) {
    validate = ajv.compile(engine.requestSchema);
    validators.set(engine, validate);
  }
  const input: Record<string, unknown> = structuredClone(body as Record<string, unknown>);
  if (!validate(input)) {
    const problems = (validate.errors ?? []).map(describe);
    throw new ValidationError(
      'invalidEngineInput',
      `The request body does not match the engine's schema: ${problems.join('; ')}`,
      {
        details: { problems },
      },
    );
  }
  return input;
}
