// The memories the ranking tests (rank, derived-keys) score: whole records
// named by their id (also their text, and the seed of their content hash),
// episodes written and observed at one instant unless `extra` says otherwise.
import type { Memory } from '../src/domain/record.ts';
import { memoryFixture } from '../src/testing.ts';

/** When every memory here was written and observed. */
export const RANKED_AT = '2026-06-01T00:00:00Z';

export const mem = (id: string, extra: Partial<Memory> = {}): Memory =>
  memoryFixture('o', {
    id,
    kind: 'episode',
    text: id,
    contentHash: `h-${id}`,
    createdAt: RANKED_AT,
    origin: { sessionId: 's', observedAt: RANKED_AT, writtenBy: 'w' },
    ...extra,
  });
