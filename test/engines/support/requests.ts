/**
 * Requests and helpers shared by the lyrics-swap engine tests and the engine benchmark.
 */
import type { LyricsSwapEngine } from '../../../lib/engines/lyrics-swap';
import { ValidationError } from '../../../lib/errors';

/** 40 English syllables in 8 lines, one line per phrase of Frère Jacques (bgm_index 4). */
export const EIGHT_LINES_EN: readonly string[] = [
  'are you sleeping now',
  'are you sleeping now',
  'brother john come on',
  'brother john come on',
  'morning bells are ringing',
  'morning bells are ringing',
  'ding dang dong bells',
  'ding dang dong bells',
];

/** Runs a request the engine must refuse. @returns its ValidationError @throws Error when it is not refused */
export async function runError(
  engine: LyricsSwapEngine,
  body: Record<string, unknown>,
  context: Parameters<LyricsSwapEngine['run']>[1],
): Promise<ValidationError> {
  try {
    await engine.run(body, context);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}
