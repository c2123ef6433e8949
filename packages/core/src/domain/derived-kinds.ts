// The kinds of derived memory the background jobs write, told apart by
// their tags. Ranking (derived-keys.ts) treats each kind differently, and
// the jobs write them: both read these, so they live below both.
import type { Memory } from './record.ts';

/** Tag of a compaction summary (a cluster of near-duplicates). */
export const COMPACTION_TAG = 'compaction';
/** Tag of a context summary (a run of turns read together). */
export const CONTEXT_TAG = 'context';
/** Tag of a sentence key (one sentence of a long turn). */
export const SENTENCE_TAG = 'sentence';

type Tagged = Pick<Memory, 'kind' | 'tags'>;

/** A summary written by compaction. */
export function isCompactionSummary(m: Tagged): boolean {
  return m.kind === 'summary' && m.tags.includes(COMPACTION_TAG);
}

/** Whether a memory is a context summary. */
export function isContextSummary(m: Tagged): boolean {
  return m.kind === 'summary' && m.tags.includes(CONTEXT_TAG);
}

/** Whether a memory is a sentence key. */
export function isSentenceKey(m: Tagged): boolean {
  return m.kind === 'summary' && m.tags.includes(SENTENCE_TAG);
}
