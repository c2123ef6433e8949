// Re-embedding after a model change: which of an owner's memories carry a
// vector from another model, and the atomic swap of vectors for new ones.
import { KeepGraphError } from '@keepgraph/core';
import type { EmbeddingUpdate } from '@keepgraph/core/ports';
import { cypher } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite, int, num, readIds, readRows } from './transactions.ts';

/** Ids of the owner's memories not embedded by `model`, oldest first. */
export async function staleEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  model: string,
  limit: number,
): Promise<string[]> {
  return readIds(ctx, cypher('stale-embeddings'), { ownerId, model, limit: int(limit) });
}

/** Replace vectors and embeddingModel in one write transaction; ids the owner lacks are ignored. */
export async function replaceEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  updates: readonly EmbeddingUpdate[],
): Promise<void> {
  if (updates.length === 0) return;
  const params = updates.map((u) => ({
    id: u.id,
    embedding: Array.from(u.embedding),
    model: u.model,
  }));
  await inWrite(ctx, (tx) => tx.run(cypher('replace-embeddings'), { ownerId, updates: params }));
}

/** Ids per query, so one call of many ids is a few bounded queries. */
const GET_BATCH = 10_000;

/** The owner's stored vectors of these memories, in one read transaction per 10,000 ids. */
export async function getEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): Promise<{ id: string; embedding: Float32Array }[]> {
  const unique = [...new Set(ids)];
  const out: { id: string; embedding: Float32Array }[] = [];
  for (let i = 0; i < unique.length; i += GET_BATCH) {
    const found = await readRows<{ id: string; embedding: unknown }>(
      ctx,
      cypher('get-embeddings'),
      { ownerId, ids: unique.slice(i, i + GET_BATCH) },
    );
    for (const r of found) out.push({ id: r.id, embedding: toFloat32(r.embedding) });
  }
  return out;
}

/** A vector property as read back: a list of floats (or a typed array). */
function toFloat32(v: unknown): Float32Array {
  if (v instanceof Float32Array) return v;
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    return Float32Array.from(v as ArrayLike<unknown>, (x) => num(x));
  }
  throw new KeepGraphError('internal', 'a stored embedding is not a list of floats', {});
}
