/**
 * The contract between the invoke service and a model engine.
 */

/** Energy consumed by one execution, in energy units (non-negative integers). */
export interface Energy {
  readonly request: number;
  readonly response: number;
  readonly service: number;
}

/** What the engine measured about one execution; the catalog's pricing turns it into {@link Energy}. */
export interface ExecutionMeasures {
  /** Length of the produced (sung) audio in seconds; 0 for engines without audio output. */
  readonly durationSeconds: number;
}

/** Per-execution facts handed to an engine. */
export interface EngineRunContext {
  /** Execution id (UUID v4) that the result reports as `uuid`. */
  readonly uuid: string;
  /** Tracking id of the request, for logs and `refs`. */
  readonly tid: string;
}

/** A finished execution. */
export interface EngineOutput {
  /** Engine-specific result, returned as `result`. */
  readonly result: Readonly<Record<string, unknown>>;
  /** How the result was made, returned as `refs` when `show_refs` is true. */
  readonly refs: Readonly<Record<string, unknown>>;
  readonly measures: ExecutionMeasures;
}

/** A JSON Schema (draft 2020-12 subset understood by Ajv) describing an engine's request body. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * A runnable model engine.
 *
 * `run` receives a body already validated against `requestSchema` (with defaults applied).
 * It throws `ValidationError` (lib/errors) for input it cannot serve (e.g. unknown `bgm_index`,
 * unsingable lyrics, a result over the size limit) before doing expensive work, and any other error
 * for internal failures (mapped to 500 `engine_failure`).
 */
export interface Engine {
  /** Engine family, e.g. `lyrics-swap`. */
  readonly kind: string;
  /** JSON Schema of the request body; must set `additionalProperties: false`. */
  readonly requestSchema: JsonSchema;
  run(input: Readonly<Record<string, unknown>>, context: EngineRunContext): Promise<EngineOutput>;
}

/** Turns the measures of one execution into energy. */
export type Pricing = (measures: ExecutionMeasures) => Energy;
