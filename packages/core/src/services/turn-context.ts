// Turns read in their place. A reply means what it answers: "Sweden, where
// my grandma lives" is about moving only because of the question before it,
// and "Yes, twice!" says nothing alone. An episode is embedded alone when it
// is written (the write path reads nothing else); with the policy's
// reflection.turnContext, reflection, which reads a conversation in order,
// embeds it again after the turn before it in its session and puts that
// vector in place of the first one (contextual chunk embeddings:
// Anthropic's "contextual retrieval", 2024; Günther et al., "Late
// Chunking", 2024). The episode's text is unchanged; only the key its
// vector search finds it by reads its context. Only a short turn before is
// read: a question or a remark is context, a long answer is a passage of
// its own, and its words would pull the turn after it away from what that
// turn says (an assistant's advice before the user's next message).
//
// The vector then carries words of the turn before it. Forgetting that turn
// must take them out too, so while the policy reads turns in context a
// cascade embeds the turns that followed what it deletes again on their own
// (vectorsWithout, before it deletes). Turning turnContext off leaves the
// vectors read in context until they are embedded again (a model change).
import type { EmbeddingUpdate } from '../ports/memory-store.ts';
import type { Memory } from '../domain/record.ts';
import { embeddingText } from '../domain/indexed-text.ts';
import type { EngineDeps } from './deps.ts';

/**
 * A turn before of this many characters or more is not read as context:
 * the same bound as a long turn's (sentence-keys.ts), the one bound
 * measured (bench/README.md, nineteenth session).
 */
export const TURN_CONTEXT_MAX_CHARS = 300;

/** What an episode's vector is made of: after the turn before it when that one is short. */
export function textInContext(episode: Memory, before: Memory | undefined): string {
  const own = embeddingText(episode);
  if (!before || before.text.length >= TURN_CONTEXT_MAX_CHARS) return own;
  return `${embeddingText(before)}\n${own}`;
}

/**
 * New vectors for the episodes among `memories` that have a short turn
 * before them in their session, each read after it; the rest are left out.
 */
export async function vectorsInContext(
  deps: Pick<EngineDeps, 'store' | 'embedder'>,
  ownerId: string,
  memories: readonly Memory[],
): Promise<EmbeddingUpdate[]> {
  const episodes = memories.filter((m) => m.kind === 'episode' && m.origin.sessionId);
  if (episodes.length === 0) return [];
  const before = new Map(
    (
      await deps.store.previousInSession(
        ownerId,
        episodes.map((e) => e.id),
      )
    ).map((p) => [p.before, p.memory]),
  );
  // Only those whose text changes: a turn with no short turn before keeps its vector.
  const read = episodes.flatMap((e) => {
    const text = textInContext(e, before.get(e.id));
    return text === embeddingText(e) ? [] : [{ id: e.id, text }];
  });
  if (read.length === 0) return [];
  const vectors = await deps.embedder.embed(
    read.map((r) => r.text),
    'document',
  );
  return read.map((e, i) => ({
    id: e.id,
    embedding: vectors[i]!,
    model: deps.embedder.modelId,
  }));
}

/** Ids asked about in one read of the turns after them. */
const SUCCESSOR_READ = 500;

/**
 * New vectors, each of its turn alone, for the episodes written just after
 * any of `gone` in their sessions and not among them: their vectors may
 * have read a turn that is going. Computed before the deletion, so an
 * embedder that fails leaves everything as it was.
 */
export async function vectorsWithout(
  deps: Pick<EngineDeps, 'store' | 'embedder'>,
  ownerId: string,
  gone: ReadonlySet<string>,
): Promise<EmbeddingUpdate[]> {
  // In slices: a wide cascade asks about thousands of ids, and one read of
  // them all would hold the store as long.
  const ids = [...gone];
  const after: Memory[] = [];
  for (let i = 0; i < ids.length; i += SUCCESSOR_READ)
    for (const s of await deps.store.nextInSession(ownerId, ids.slice(i, i + SUCCESSOR_READ)))
      if (!gone.has(s.memory.id)) after.push(s.memory);
  const unique = [...new Map(after.map((m) => [m.id, m])).values()];
  if (unique.length === 0) return [];
  const vectors = await deps.embedder.embed(unique.map(embeddingText), 'document');
  return unique.map((m, i) => ({ id: m.id, embedding: vectors[i]!, model: deps.embedder.modelId }));
}
