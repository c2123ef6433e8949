// Context summaries: reflection's groups of related turns written down as
// one more key to them. A turn rarely answers a question alone: "It was
// awesome, we explored nature and roasted marshmallows" is about camping
// only because of the turn before it. Reflection groups an owner's episodes
// within passages (at most contextWindow consecutive episodes of one
// session) by similarity; each group of two or more becomes a summary whose
// text is its turns with their speakers, DERIVED_FROM each of them. Recall
// treats it like every derived memory (derived-keys.ts): a hit lends its
// score to the turns the query matched best, and a group wider than a
// result may stand for is a key only. On locomo-dev this is what lifts
// recall above the raw turns (bench/README.md).
import type { Memory } from '../domain/record.ts';
import { embeddingText } from '../domain/indexed-text.ts';
import { CONTEXT_TAG } from '../domain/derived-kinds.ts';
import { derivedInput, type DerivedWrite } from './derived-writes.ts';

/** Longest text of a context summary; the embedding model reads less anyway (512 tokens). */
export const CONTEXT_MAX_CHARS = 4000;

/** Confidence of a context summary: it asserts nothing, it only brings turns together. */
const CONTEXT_CONFIDENCE = 0.5;

/** Who writes context summaries, in their origin (reflection's grouping, not the extractor). */
export const CONTEXT_EXTRACTOR = { name: 'keepgraph-context', version: '1' } as const;

/**
 * Passages of an owner's episodes (in write order): runs of consecutive
 * episodes of one session, each cut to at most `size`.
 */
export function passagesOf<T extends Pick<Memory, 'origin'>>(
  episodes: readonly T[],
  size: number,
): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  for (const e of episodes) {
    const last = current[current.length - 1];
    if (current.length >= size || (last && last.origin.sessionId !== e.origin.sessionId)) {
      out.push(current);
      current = [];
    }
    current.push(e);
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * The context summary of one group (two or more episodes, in write order),
 * as a derived write with a deterministic id. Its key is its first turn's,
 * so a group rebuilt from the same start (after a deletion) supersedes it.
 */
export function contextSummaryOf(ownerId: string, group: readonly Memory[]): DerivedWrite {
  const ids = group.map((m) => m.id);
  let text = '';
  for (const m of group) {
    const line = embeddingText(m);
    if (text.length + line.length + 1 > CONTEXT_MAX_CHARS) break;
    text += (text ? '\n' : '') + line;
  }
  return {
    idParts: ['context', ownerId, ...[...ids].sort()],
    input: derivedInput({
      kind: 'summary',
      key: `context:${ids[0]}`,
      text: text || embeddingText(group[0]!).slice(0, CONTEXT_MAX_CHARS),
      authority: 'agent_inferred',
      confidence: CONTEXT_CONFIDENCE,
      derivedFrom: ids,
      tags: ['reflection', CONTEXT_TAG],
      origin: { extractor: CONTEXT_EXTRACTOR },
    }),
  };
}
