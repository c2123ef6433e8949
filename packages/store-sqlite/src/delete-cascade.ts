// MemoryStore.deleteCascade: in one IMMEDIATE transaction, delete the roots
// and every memory derived from them (transitively), with their vectors,
// full-text entries, edges, orphaned relation edges, entities and sources,
// and session-buffer copies; record a rederive job in the outbox for each
// derived memory that keeps surviving sources; audit it; return the receipt
// (invariant 7).
import type { MemoryKind } from '@keepgraph/core';
import type { CascadeRequest, CascadeReceipt, RederiveEntry } from '@keepgraph/core/ports';
import { appendAuditEvents } from './audit-log.ts';
import { addOwnerTextRows, tokensOfRows } from './full-text-statistics.ts';
import { recordJobs } from './outbox.ts';
import type { Statements } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { VECTOR_TABLE } from './vector-table.ts';
import { VectorChanges } from './vector-index/owner-indexes.ts';

interface ClosureRow {
  id: string;
  rid: number;
  content_hash: string;
  is_root: number;
}

/**
 * Drop the link rows (memory to entity, memory to source) of the closure's
 * memories; returns the ids they linked to, which may now be orphans.
 */
function detachLinks(
  st: Statements,
  table: 'memory_about' | 'memory_sources',
  column: 'entity_id' | 'source_id',
  p: { ownerId: string; ids: string },
): number[] {
  const inIds = '(SELECT value FROM json_each(@ids))';
  const linked = st
    .sql(`SELECT DISTINCT ${column} FROM ${table} WHERE memory_id IN ${inIds}`)
    .pluck()
    .all(p) as number[];
  st.sql(`DELETE FROM ${table} WHERE owner_id = @ownerId AND memory_id IN ${inIds}`).run(p);
  return linked;
}

/** Delete the closure rows and everything hanging off them; returns the counts. */
function deleteClosure(
  ctx: StoreContext,
  ownerId: string,
  rows: ClosureRow[],
  vectors: VectorChanges,
) {
  const { st } = ctx;
  const ids = JSON.stringify(rows.map((r) => r.id));
  const p = { ownerId, ids };

  const removed = st
    .sql(
      // `+owner_id`: looked up by primary key, not through the owner's index
      // (which the planner otherwise picks, visiting every vector of the owner).
      `DELETE FROM ${VECTOR_TABLE} WHERE +owner_id = @ownerId AND memory_id IN (SELECT value FROM json_each(@ids))
       RETURNING memory_id`,
    )
    .pluck()
    .all(p) as string[];
  vectors.change(ownerId).removed.push(...removed);
  const embeddingsDeleted = removed.length;
  // One statement for all the full-text rows: FTS5 looks each rowid up and
  // queues its terms' deletions, applied once when the next statement opens
  // a savepoint. Row by row, each statement flushed the queue, and 1,000
  // rows took 55-150 ms instead of 3-6 (bench/README, cascade).
  const rids = rows.map((r) => r.rid);
  const tokens = tokensOfRows(st, rids);
  const fullTextEntriesDeleted = st
    .sql('DELETE FROM memory_fts_terms WHERE rowid IN (SELECT value FROM json_each(?))')
    .run(JSON.stringify(rids)).changes;
  addOwnerTextRows(st, new Map([[ownerId, { rows: -fullTextEntriesDeleted, tokens: -tokens }]]));

  // Relation edges: drop this closure's assertions, then the edges no
  // surviving memory asserts.
  const touchedRelations = st
    .sql(
      `SELECT DISTINCT r.id, r.subject_id, r.object_id FROM relations r
         JOIN relation_assertions a ON a.relation_id = r.id
        WHERE a.owner_id = @ownerId AND a.memory_id IN (SELECT value FROM json_each(@ids))`,
    )
    .all(p) as { id: number; subject_id: number; object_id: number }[];
  st.sql(
    'DELETE FROM relation_assertions WHERE owner_id = @ownerId AND memory_id IN (SELECT value FROM json_each(@ids))',
  ).run(p);
  const relationEdgesDeleted = st
    .sql(
      `DELETE FROM relations WHERE +owner_id = @ownerId AND id IN (SELECT value FROM json_each(@rel))
         AND NOT EXISTS (SELECT 1 FROM relation_assertions a WHERE a.relation_id = relations.id)`,
    )
    .run({ ownerId, rel: JSON.stringify(touchedRelations.map((r) => r.id)) }).changes;

  // Entities: those the closure pointed at, deleted when nothing else does.
  const aboutEntities = detachLinks(st, 'memory_about', 'entity_id', p);
  const candidates = new Set<number>(aboutEntities);
  for (const r of touchedRelations) candidates.add(r.subject_id).add(r.object_id);
  const entitiesDeleted = st
    .file('delete-orphan-entities')
    .run({ ownerId, entityIds: JSON.stringify([...candidates]) }).changes;

  // Sources: same rule, a source no memory names any more goes.
  const sourceIds = detachLinks(st, 'memory_sources', 'source_id', p);
  st.sql(
    `DELETE FROM sources WHERE id IN (SELECT value FROM json_each(@sourceIds))
       AND NOT EXISTS (SELECT 1 FROM memory_sources s WHERE s.source_id = sources.id)`,
  ).run({ sourceIds: JSON.stringify(sourceIds) });

  // Session-buffer copies: linked by memory_id, or appended apart from the
  // write with the same text (no link; found by the memories' content hash,
  // computed here as it was for them, since the buffer keeps no hash).
  const wanted = new Set(rows.map((r) => r.content_hash));
  const copies = (
    st.sql('SELECT seq, text FROM session_messages WHERE owner_id = ?').all(ownerId) as {
      seq: number;
      text: string;
    }[]
  )
    .filter((m) => wanted.has(ctx.rules.contentHash(m.text)))
    .map((m) => m.seq);
  // Each delete by its own index (an OR of the two would walk the owner's rows).
  const sessionMessagesDeleted =
    st
      .sql(
        'DELETE FROM session_messages WHERE +owner_id = @ownerId AND memory_id IN (SELECT value FROM json_each(@ids))',
      )
      .run(p).changes +
    st
      .sql(
        'DELETE FROM session_messages WHERE +owner_id = @ownerId AND seq IN (SELECT value FROM json_each(@copies))',
      )
      .run({ ownerId, copies: JSON.stringify(copies) }).changes;

  for (const column of ['child_id', 'source_id'])
    st.sql(
      `DELETE FROM derived_from WHERE owner_id = @ownerId AND ${column} IN (SELECT value FROM json_each(@ids))`,
    ).run(p);

  // Survivors that pointed at a deleted version keep their validity window
  // (a superseded claim stays superseded) but lose the dangling id.
  st.sql(
    `UPDATE memories SET superseded_by = NULL
      WHERE owner_id = @ownerId AND superseded_by IN (SELECT value FROM json_each(@ids))`,
  ).run(p);
  st.sql(
    `UPDATE memories SET supersedes = NULL
      WHERE owner_id = @ownerId AND supersedes IN (SELECT value FROM json_each(@ids))`,
  ).run(p);

  st.sql(
    'DELETE FROM memories WHERE owner_id = @ownerId AND id IN (SELECT value FROM json_each(@ids))',
  ).run(p);

  // A recorded answer that names a deleted memory may hold its text: it goes,
  // the record stays (a repeat of the request still writes nothing).
  st.sql(
    `UPDATE idempotency SET response_json = NULL, memory_ids_json = '[]', forgotten = 1
      WHERE owner_id = @ownerId AND EXISTS (
       SELECT 1 FROM json_each(memory_ids_json) n WHERE n.value IN (SELECT value FROM json_each(@ids)))`,
  ).run(p);

  return {
    embeddingsDeleted,
    fullTextEntriesDeleted,
    relationEdgesDeleted,
    entitiesDeleted,
    sessionMessagesDeleted,
  };
}

/** Run a cascade; throws not_found when none of the roots is this owner's. */
export function deleteCascade(ctx: StoreContext, req: CascadeRequest): CascadeReceipt {
  const run = ctx.db.transaction((): [CascadeReceipt, () => void] => {
    const rootIds = JSON.stringify([...new Set(req.rootIds)]);
    const rows = ctx.st
      .file('cascade-closure')
      .all({ ownerId: req.ownerId, rootIds }) as ClosureRow[];
    ctx.rules.requireRoots(req, rows.filter((r) => r.is_root === 1).length);
    const deletedMemoryIds = rows.map((r) => r.id);
    const deletedContentHashes = [...new Set(rows.map((r) => r.content_hash))];

    // Computed before the edges go: the derived_from rows are the evidence.
    const rederive: RederiveEntry[] = (
      ctx.st.file('cascade-rederive').all({
        ownerId: req.ownerId,
        closure: JSON.stringify(deletedMemoryIds),
        // A step of a wider cascade: only the cascade's own roots are not
        // re-derived, and its other steps' memories do not survive.
        rootIds: req.step ? JSON.stringify(req.step.requestedRoots) : rootIds,
        outside: JSON.stringify(req.step?.deletedByCascade ?? []),
      }) as {
        id: string;
        kind: MemoryKind;
        tags_json: string;
        surviving_json: string;
      }[]
    ).map((r) => ({
      id: r.id,
      kind: r.kind,
      tags: JSON.parse(r.tags_json) as string[],
      survivingSources: (JSON.parse(r.surviving_json) as string[]).sort(),
    }));

    const vectors = new VectorChanges();
    const counts = deleteClosure(ctx, req.ownerId, rows, vectors);
    // What commits beside the deletion (receipt, rederive jobs, audit) is
    // the engine's decision, from what was found and deleted here.
    const { receipt, jobs, audit } = ctx.rules.settleCascade(req, {
      deletedMemoryIds,
      deletedContentHashes,
      ...counts,
      rederive,
    });
    recordJobs(ctx.st, jobs, req.at);
    appendAuditEvents(ctx, audit);
    return [receipt, ctx.vectors.record(vectors)];
  });
  const [receipt, committed] = run.immediate();
  // Only a committed deletion reaches the in-memory indexes.
  committed();
  return receipt;
}
