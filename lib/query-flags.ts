/**
 * Boolean query flags (`detail`, `date`, `show_refs`): `true/false/1/0` (api-notes B5).
 */
import { ValidationError } from './errors';

// A Map, not an object literal: `constructor` or `__proto__` must not read as a flag value.
const FLAG_VALUES: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

/**
 * Reads an optional boolean query flag.
 * @throws ValidationError `invalidParameter` for a value other than true/false/1/0
 */
export function parseFlag(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const flag = FLAG_VALUES.get(value.toLowerCase());
  if (flag === undefined) {
    throw new ValidationError(
      'invalidParameter',
      `Query parameter "${name}" must be one of true, false, 1, 0; got "${value.slice(0, 40)}"`,
      { details: { parameter: name } },
    );
  }
  return flag;
}
