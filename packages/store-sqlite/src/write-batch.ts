// MemoryStore.write: one IMMEDIATE transaction that inserts the batch's
// memories with their index entries and edges, marks supersessions and
// reflected episodes, appends session messages, records the triggered jobs
// in the outbox and seals the audit events. Any throw rolls it all back,
// so a failed write leaves no job behind.
import { toMs } from '@keepgraph/core/ports';
import type { MemoryWrite, WriteBatch } from '@keepgraph/core/ports';
import { appendAuditEvents } from './audit-log.ts';
import { addOwnerTextRows, tokensOfRows } from './full-text-statistics.ts';
import { linkDerivedFrom, linkEntities, linkSources } from './graph-links.ts';
import { recordJobs } from './outbox.ts';
import { ownerTaggedText } from './owner-terms.ts';
import { markReflected } from './reflection.ts';
import { recordPasses } from './scheduled-passes.ts';
import { memoryToParams } from './row-mapping.ts';
import type { StoreContext } from './store-context.ts';
import { VECTOR_TABLE } from './vector-table.ts';
import { VectorChanges } from './vector-index/owner-indexes.ts';

function insertMemory(ctx: StoreContext, w: MemoryWrite, vectors: VectorChanges): number {
  const m = w.memory;
  const params = memoryToParams(m);
  const { rid } = ctx.st.file('insert-memory').get(params) as { rid: number };
  ctx.st
    .sql(
      'INSERT INTO memory_fts_terms (rowid, text, owner_id, memory_id, content_hash) VALUES (?, ?, ?, ?, ?)',
    )
    .run(rid, ownerTaggedText(m.ownerId, m.text), m.ownerId, m.id, m.contentHash);
  if (w.embedding) {
    ctx.st
      .sql(
        `INSERT INTO ${VECTOR_TABLE} (memory_id, owner_id, embedding, expires_ms, valid_from_ms) VALUES (?, ?, ?, ?, ?)`,
      )
      .run(m.id, m.ownerId, w.embedding, params.expires_ms, params.valid_from_ms);
    vectors.change(m.ownerId).added.push({
      id: m.id,
      vector: w.embedding,
      expiresMs: params.expires_ms,
      validFromMs: params.valid_from_ms,
    });
  }
  linkEntities(ctx.st, m);
  linkSources(ctx.st, m);
  return rid;
}

/** Count the batch's full-text rows and tokens for their owners (full-text-statistics.ts). */
function countTextRows(ctx: StoreContext, inserted: ReadonlyMap<string, number[]>): void {
  const changes = new Map<string, { rows: number; tokens: number }>();
  for (const [ownerId, rids] of inserted)
    changes.set(ownerId, { rows: rids.length, tokens: tokensOfRows(ctx.st, rids) });
  addOwnerTextRows(ctx.st, changes);
}

/** Apply a WriteBatch atomically (the kit has checked its shape: checkWriteBatch). */
export function writeBatch(ctx: StoreContext, batch: WriteBatch): void {
  const run = ctx.db.transaction((): (() => void) => {
    const vectors = new VectorChanges();
    // IMMEDIATE: this transaction holds the write lock, so what it reads
    // of a key now is what it writes against.
    const current = ctx.st.sql(
      'SELECT id FROM memories WHERE owner_id = ? AND key = ? AND superseded_by IS NULL',
    );
    for (const k of batch.keys ?? [])
      ctx.rules.checkKey(k.currentIds, current.pluck().all(k.ownerId, k.key) as string[]);
    const inserted = new Map<string, number[]>();
    for (const w of batch.memories) {
      const rids = inserted.get(w.memory.ownerId) ?? [];
      rids.push(insertMemory(ctx, w, vectors));
      inserted.set(w.memory.ownerId, rids);
    }
    countTextRows(ctx, inserted);
    // Edges after all inserts, so a batch may hold a summary and its sources.
    for (const w of batch.memories) linkDerivedFrom(ctx.st, w.memory);

    // Owner-scoped: a mark naming another owner's memory matches no row.
    const supersede = ctx.st.sql(
      `UPDATE memories SET valid_to = @at, valid_to_ms = @atMs, superseded_by = @by
        WHERE owner_id = @ownerId AND id = @id`,
    );
    for (const s of batch.supersede) {
      supersede.run({
        ownerId: s.ownerId,
        id: s.id,
        by: s.by,
        at: s.at,
        atMs: toMs(s.at, 'supersede.at'),
      });
    }

    const message = ctx.st.sql(
      `INSERT INTO session_messages (owner_id, session_id, role, text, at, at_ms, expires_at, expires_ms, memory_id,
                                     writer_principal, writer_role)
       VALUES (@ownerId, @sessionId, @role, @text, @at, @atMs, @expiresAt, @expiresMs, @memoryId,
               @writerPrincipal, @writerRole)`,
    );
    for (const msg of batch.sessionMessages) {
      message.run({
        ownerId: msg.ownerId,
        sessionId: msg.sessionId,
        role: msg.role,
        text: msg.text,
        at: msg.at,
        atMs: toMs(msg.at, 'message.at'),
        expiresAt: msg.expiresAt,
        expiresMs: toMs(msg.expiresAt, 'message.expiresAt'),
        memoryId: msg.memoryId,
        writerPrincipal: msg.writer?.principal ?? null,
        writerRole: msg.writer?.role ?? null,
      });
    }

    if (batch.reflected) markReflected(ctx.st, batch.reflected);
    if (batch.jobs) recordJobs(ctx.st, batch.jobs, ctx.rules.outboxRecordedAt(batch));
    recordPasses(ctx.st, batch);
    appendAuditEvents(ctx, batch.audit);
    return ctx.vectors.record(vectors);
  });
  // The in-memory indexes learn of the vectors once they are committed.
  run.immediate()();
}
