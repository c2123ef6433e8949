// When a memory counts as live: one definition for recall, reflection,
// compaction and re-derivation (invariant 6: never expired, superseded or
// outside its validity window).
import type { Memory } from './record.ts';

export function isLiveAt(
  m: Pick<Memory, 'expiresAt' | 'supersededBy' | 'validTo' | 'validFrom'>,
  now: string,
): boolean {
  return (
    m.expiresAt > now &&
    m.supersededBy === null &&
    (m.validTo === null || m.validTo > now) &&
    m.validFrom <= now
  );
}
