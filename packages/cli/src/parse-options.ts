// Option parsers for commander: every number and enum is validated once, at
// the edge, so a typo fails before the runtime (and the model) is loaded.
import { InvalidArgumentError } from 'commander';

/** A whole number >= `min` (and <= `max` when given). */
export function intOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        `expected a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}.`,
      );
    }
    return n;
  };
}

/** A number in [min, max]. */
export function numberOption(min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}.`);
    }
    return n;
  };
}

/** Append to a list: for options given several times (`--id a --id b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
