// Re-embedding after a model change: which of an owner's memories carry a
// vector from another model, and the atomic swap of vectors for new ones.
import { KeepGraphError, checkEmbeddingUpdates } from '@keepgraph/core';
import type { EmbeddingUpdate } from '@keepgraph/core';
import { cypher } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite, int, readRows } from './transactions.ts';
import { requireOwner } from './write-batch.ts';

/** Ids of the owner's memories not embedded by `model`, oldest first. */
export async function staleEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  model: string,
  limit: number,
): Promise<string[]> {
  requireOwner(ownerId);
  if (!Number.isInteger(limit) || limit < 0) {
    throw new KeepGraphError('invalid_input', 'limit must be a non-negative integer', { limit });
  }
  const found = await readRows<{ id: string }>(ctx, cypher('stale-embeddings'), {
    ownerId,
    model,
    limit: int(limit),
  });
  return found.map((r) => r.id);
}

/** Replace vectors and embeddingModel in one write transaction; ids the owner lacks are ignored. */
export async function replaceEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  updates: readonly EmbeddingUpdate[],
): Promise<void> {
  requireOwner(ownerId);
  checkEmbeddingUpdates(updates, ctx.dimensions);
  if (updates.length === 0) return;
  const params = updates.map((u) => ({
    id: u.id,
    embedding: Array.from(u.embedding),
    model: u.model,
  }));
  await inWrite(ctx, (tx) => tx.run(cypher('replace-embeddings'), { ownerId, updates: params }));
}
