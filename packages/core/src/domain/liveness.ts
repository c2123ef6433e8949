// When a memory counts as live: one definition for recall, reflection,
// compaction and re-derivation (invariant 6: never expired, superseded or
// outside its validity window).
import type { Memory } from './record.ts';

/**
 * Held at `now`: not expired, not superseded, not ended. A memory valid from
 * a later time is held (an export keeps it) though not yet live.
 */
export function isHeldAt(
  m: Pick<Memory, 'expiresAt' | 'supersededBy' | 'validTo'>,
  now: string,
): boolean {
  return m.expiresAt > now && m.supersededBy === null && (m.validTo === null || m.validTo > now);
}

export function isLiveAt(
  m: Pick<Memory, 'expiresAt' | 'supersededBy' | 'validTo' | 'validFrom'>,
  now: string,
): boolean {
  return isHeldAt(m, now) && m.validFrom <= now;
}
