// Durations as the policy file writes them (`90m`, `12h`, `30d`). Kept apart
// from the schema so that the CLI and the server can parse a `--ttl` flag the
// same way the policy does.
import { KeepGraphError } from '../domain/errors.ts';

const UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 } as const;

/**
 * The longest duration anything may live: 100 years. Every memory must expire
 * (invariant 2), so there is no `never`; this bound also keeps `expiresAt`
 * far from the edge of what a `Date` can hold.
 */
export const MAX_DURATION_SECONDS = 36_500 * 86_400;

const DURATION_RE = /^(\d{1,9})\s*([smhdw])$/;

/** True when `text` is a duration `parseDuration` accepts. */
export function isDuration(text: string): boolean {
  const m = DURATION_RE.exec(text.trim());
  if (!m) return false;
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
  return seconds > 0 && seconds <= MAX_DURATION_SECONDS;
}

/**
 * Parses `3600s`, `90m`, `12h`, `30d` or `2w` into seconds.
 *
 * Throws `KeepGraphError('invalid_input')` on anything else, including zero
 * and durations past {@link MAX_DURATION_SECONDS}: a caller-supplied flag is
 * input, and the policy loader reports its own `invalid_policy` with a path.
 */
export function parseDuration(text: string): number {
  const m = DURATION_RE.exec(text.trim());
  if (!m || !isDuration(text)) {
    throw new KeepGraphError(
      'invalid_input',
      `invalid duration "${text}": use a positive whole number and one of s, m, h, d, w (e.g. 30d), at most 36500d`,
    );
  }
  return Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
}
