/**
 * The engine catalog: which engine ids exist, how each is built, and how its executions are priced
 * (api-notes B2, B12).
 */
import { NotFoundError, ValidationError } from '../errors';
import type { Energy, Engine, ExecutionMeasures, Pricing } from './engine';
import { createLyricsSwapEngine, SINGERS, type SingerPreset } from './lyrics-swap';

/** `<32 uppercase hex>.<name>`; the name is lowercase letters, digits and dashes. */
export const ENGINE_ID_PATTERN = /^[0-9A-F]{32}\.[a-z0-9][a-z0-9-]{0,62}$/;

/** Shared id prefix of the lyrics-swap singers (the vendor's example prefix). */
export const LYRICS_SWAP_PREFIX = '5A22C6DFE641404096876E9928EA1294';

/**
 * Lyrics-swap pricing: request 0, response = whole seconds of sung vocal (floor of `duration`),
 * service 0 (api-notes A: 23.33 s → 23 energy).
 */
export const lyricsSwapPricing: Pricing = (measures: ExecutionMeasures): Energy => ({
  request: 0,
  response: Math.max(0, Math.floor(measures.durationSeconds)),
  service: 0,
});

/** A catalog row. */
export interface CatalogEntry {
  readonly engineId: string;
  /** The part after the dot, e.g. `hikari`. */
  readonly name: string;
  readonly kind: 'lyrics-swap';
  /** BCP 47 language the singer sings in. */
  readonly language: string;
  readonly pricing: Pricing;
  readonly singer: SingerPreset;
}

/** Options for building engines. */
export interface CatalogOptions {
  /** Directory of kuromoji's dictionary (Lambda ships it beside the bundle). */
  readonly kuromojiDictDir?: string | undefined;
}

/** Looks engines up by id and builds each one once, on first use. */
export class EngineCatalog {
  readonly #entries: ReadonlyMap<string, CatalogEntry>;
  readonly #engines = new Map<string, Engine>();
  readonly #options: CatalogOptions;

  constructor(options: CatalogOptions = {}) {
    this.#options = options;
    const entries = Object.values(SINGERS).map(
      (singer): CatalogEntry => ({
        engineId: `${LYRICS_SWAP_PREFIX}.${singer.id}`,
        name: singer.id,
        kind: 'lyrics-swap',
        language: singer.language,
        pricing: lyricsSwapPricing,
        singer,
      }),
    );
    this.#entries = new Map(entries.map((entry) => [entry.engineId, entry]));
  }

  /** Every catalog row, in id order. */
  list(): CatalogEntry[] {
    return [...this.#entries.values()].sort((a, b) => a.engineId.localeCompare(b.engineId));
  }

  /**
   * The catalog row and the engine for an id.
   * @throws ValidationError `invalidEngineId` when the id is malformed
   * @throws NotFoundError `engineNotFound` when no engine has this id
   */
  get(engineId: string): { entry: CatalogEntry; engine: Engine } {
    if (!ENGINE_ID_PATTERN.test(engineId)) {
      throw new ValidationError(
        'invalidEngineId',
        `Engine id "${engineId.slice(0, 80)}" is malformed; expected <32 uppercase hex>.<name>, e.g. ${LYRICS_SWAP_PREFIX}.hikari`,
      );
    }
    const entry = this.#entries.get(engineId);
    if (entry === undefined) {
      throw new NotFoundError(
        'engineNotFound',
        `No engine "${engineId}"; available: ${[...this.#entries.keys()].join(', ')}`,
      );
    }
    let engine = this.#engines.get(engineId);
    if (engine === undefined) {
      engine = createLyricsSwapEngine({
        singer: entry.singer,
        kuromojiDictDir: this.#options.kuromojiDictDir,
      });
      this.#engines.set(engineId, engine);
    }
    return { entry, engine };
  }
}
