// In a conversation, the answer to a question is usually the next turn, and
// that turn often shares no word with the question ("How long have you been
// married?" / "5 years already!"). A query that matches the question turn is
// after what its reply says, so recall lets the reply ride on the question
// turn's score. Only question turns lend their score: next to a statement,
// the following turn is just more conversation.
import type { SessionSuccessor } from '../ports/memory-store.ts';
import type { Memory } from './record.ts';
import type { FusedEntry } from './scoring.ts';

/** A turn that asks something: a question mark outside a URL or code. */
export function asksQuestion(text: string): boolean {
  return /\?(\s|["')\]]|$)/u.test(text);
}

/**
 * Give each question turn's successor in its session `weight` × the question
 * turn's fused score, unless the reply already scores higher on its own.
 * Mutates and returns `fused`; `parents` are the live candidates that were
 * asked about, `successors` what the store found after them.
 */
export function lendScoreToReplies(
  fused: Map<string, FusedEntry>,
  parents: ReadonlyMap<string, Memory>,
  successors: readonly SessionSuccessor[],
  weight: number,
  maxChars = 0,
): Map<string, FusedEntry> {
  if (weight <= 0) return fused;
  for (const { after, memory } of successors) {
    if (maxChars > 0 && memory.text.length > maxChars) continue;
    const parent = parents.get(after);
    const from = fused.get(after);
    if (!parent || !from || parent.kind !== 'episode' || !asksQuestion(parent.text)) continue;
    const lent = from.fused * weight;
    const entry = fused.get(memory.id) ?? { ranks: {}, raw: {}, fused: 0 };
    if (lent <= entry.fused) continue;
    entry.raw.reply = from.fused;
    entry.fused = lent;
    fused.set(memory.id, entry);
  }
  return fused;
}
