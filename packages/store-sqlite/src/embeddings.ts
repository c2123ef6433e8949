// Re-embedding after a model change: which of an owner's memories carry a
// vector from another model, and the atomic swap of vectors for new ones.
import type { EmbeddingUpdate } from '@keepgraph/core/ports';
import type { StoreContext } from './store-context.ts';
import { VECTOR_TABLE } from './vector-table.ts';
import { VectorChanges } from './vector-index/owner-indexes.ts';

/** Ids of the owner's memories not embedded by `model`, oldest first. */
export function staleEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  model: string,
  limit: number,
): string[] {
  return ctx.st.file('stale-embeddings').pluck().all({ ownerId, model, limit }) as string[];
}

/**
 * Replace vectors and embedding_model in one IMMEDIATE transaction. The
 * vector row is deleted and inserted again (its validity copied from the
 * memory), which also gives a vector to a memory stored without one. Ids the
 * owner lacks are skipped before the table is touched, so no other owner's
 * vector moves.
 */
export function replaceEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  updates: readonly EmbeddingUpdate[],
): void {
  if (updates.length === 0) return;
  const run = ctx.db.transaction((): (() => void) => {
    const vectors = new VectorChanges();
    const change = vectors.change(ownerId);
    const row = ctx.st.sql(
      'SELECT expires_ms, valid_from_ms FROM memories WHERE owner_id = ? AND id = ?',
    );
    const setModel = ctx.st.sql(
      'UPDATE memories SET embedding_model = ? WHERE owner_id = ? AND id = ?',
    );
    const del = ctx.st.sql(`DELETE FROM ${VECTOR_TABLE} WHERE memory_id = ?`);
    const insert = ctx.st.sql(
      `INSERT INTO ${VECTOR_TABLE} (memory_id, owner_id, embedding, expires_ms, valid_from_ms) VALUES (?, ?, ?, ?, ?)`,
    );
    for (const u of updates) {
      const m = row.get(ownerId, u.id) as { expires_ms: number; valid_from_ms: number } | undefined;
      if (!m) continue;
      if (del.run(u.id).changes > 0) change.removed.push(u.id);
      insert.run(u.id, ownerId, u.embedding, m.expires_ms, m.valid_from_ms);
      change.added.push({
        id: u.id,
        vector: u.embedding,
        expiresMs: m.expires_ms,
        validFromMs: m.valid_from_ms,
      });
      setModel.run(u.model, ownerId, u.id);
    }
    return ctx.vectors.record(vectors);
  });
  run.immediate()();
}

/** Ids per query: json_each has no bound, this only caps one statement's work. */
const GET_BATCH = 10_000;

/**
 * The owner's stored vectors of these memories, one primary-key lookup per
 * id the owner has. Each comes back as a float32 BLOB; it is copied into its
 * own (aligned) buffer, since a Buffer may sit at any offset.
 */
export function getEmbeddings(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): { id: string; embedding: Float32Array }[] {
  const unique = [...new Set(ids)];
  const stmt = ctx.st.file('get-embeddings');
  const out: { id: string; embedding: Float32Array }[] = [];
  for (let i = 0; i < unique.length; i += GET_BATCH) {
    const chunk = JSON.stringify(unique.slice(i, i + GET_BATCH));
    for (const r of stmt.all({ ownerId, ids: chunk }) as { id: string; embedding: Buffer }[]) {
      out.push({ id: r.id, embedding: new Float32Array(new Uint8Array(r.embedding).buffer) });
    }
  }
  return out;
}
