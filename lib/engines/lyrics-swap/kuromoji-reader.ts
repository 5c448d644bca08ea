/**
 * Readings of Japanese text with kanji, from kuromoji (IPADIC), loaded lazily once per process and
 * dictionary directory (≈0.7–1 s and ≈350 MB, so only lines with kanji pay for it; engine-design §3).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IpadicFeatures, builder as KuromojiBuilder, Tokenizer } from 'kuromoji';

/** One token: its surface text and its katakana reading (`undefined` when the dictionary has none). */
export interface ReadingToken {
  readonly surface: string;
  readonly reading: string | undefined;
}

/** Tokenizes a text and gives each token's reading (`token.reading`, orthographic katakana). */
export type KanjiReader = (text: string) => Promise<ReadingToken[]>;

const tokenizers = new Map<string, Promise<Tokenizer<IpadicFeatures>>>();

/** The `dict/` directory of the installed kuromoji package (used when no directory is configured). */
export function defaultKuromojiDictDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict');
}

/** kuromoji is CommonJS: Node puts its API under `default`, bundlers may not. */
function pickBuilder(module: unknown): typeof KuromojiBuilder {
  const record = (value: unknown): Record<string, unknown> | undefined =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  for (const candidate of [record(module), record(record(module)?.default)]) {
    const builder = candidate?.builder;
    if (typeof builder === 'function') return builder as typeof KuromojiBuilder;
  }
  throw new Error('kuromoji does not export builder()');
}

function loadTokenizer(dictDir: string): Promise<Tokenizer<IpadicFeatures>> {
  let pending = tokenizers.get(dictDir);
  if (pending === undefined) {
    pending = import('kuromoji').then(
      (module) =>
        new Promise<Tokenizer<IpadicFeatures>>((resolve, reject) => {
          pickBuilder(module)({ dicPath: dictDir }).build((error, tokenizer) => {
            if (error)
              reject(new Error(`kuromoji could not load its dictionary from ${dictDir}`, { cause: error }));
            else resolve(tokenizer);
          });
        }),
    );
    // A failed load is not cached, so a later request can retry.
    pending.catch(() => tokenizers.delete(dictDir));
    tokenizers.set(dictDir, pending);
  }
  return pending;
}

/** Dictionary directories whose tokenizer has been requested in this process (for tests and logs). */
export function kuromojiLoads(): readonly string[] {
  return [...tokenizers.keys()];
}

/**
 * A reader backed by kuromoji. Nothing is loaded until the first call.
 * @param dictDir - IPADIC directory; default = the kuromoji package's own `dict/`
 * @throws Error (on call) when the dictionary cannot be loaded
 */
export function createKuromojiReader(dictDir?: string): KanjiReader {
  return async (text) => {
    const tokenizer = await loadTokenizer(dictDir ?? defaultKuromojiDictDir());
    return tokenizer.tokenize(text).map((token) => ({
      surface: token.surface_form,
      reading: token.reading === undefined || token.reading === '*' ? undefined : token.reading,
    }));
  };
}
