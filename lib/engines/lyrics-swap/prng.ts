/**
 * Seeded pseudo-random numbers for the audio path, so the same request always renders the same bytes.
 */

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * Mulberry32: a 32-bit seeded generator (public-domain algorithm by Tommy Ettinger), plenty for noise
 * and jitter.
 * @param seed - any integer; equal seeds give equal sequences
 */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * FNV-1a hash of a string, to derive seeds from stable inputs (singer id, lyrics).
 * @returns an unsigned 32-bit integer
 */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
