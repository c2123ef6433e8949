// MemoryStore.write: one write transaction that locks the owners, inserts
// the batch's memories with their embeddings and edges, marks supersessions
// and reflected episodes, appends session messages, records the triggered
// jobs in the outbox and seals the audit events. Any throw rolls it all
// back (nothing written, no job, no audit event).
import { toMs } from '@keepgraph/core/ports';
import type { SessionMessage, StoreRules, WriteBatch } from '@keepgraph/core/ports';
import { appendAuditEvents } from './audit-log.ts';
import { linkDerivedFrom, linkMemories, linkSupersedes } from './graph-links.ts';
import { recordJobs } from './outbox.ts';
import { cypher } from './queries.ts';
import { memoryToProps } from './record-mapping.ts';
import { markReflected } from './reflection.ts';
import { recordPasses } from './scheduled-passes.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite, int, num, rows } from './transactions.ts';
import type { Tx } from './transactions.ts';

/** Lock the owners, insert the memories with rids, move the owners' counters. */
async function insertMemories(tx: Tx, rules: StoreRules, batch: WriteBatch): Promise<void> {
  const added = new Map<string, number>();
  for (const w of batch.memories)
    added.set(w.memory.ownerId, (added.get(w.memory.ownerId) ?? 0) + 1);
  const owners = [...added.keys()].sort();
  const locked = rows<{ ownerId: string; nextRid: unknown }>(
    await tx.run(cypher('lock-owners'), { owners }),
  );
  // Under the owners' locks: another writer of the key has committed or waits.
  for (const k of batch.keys ?? []) {
    const found = rows<{ id: string }>(
      await tx.run(
        'MATCH (m:Memory {ownerId: $ownerId, key: $key}) WHERE m.supersededBy IS NULL RETURN m.id AS id',
        { ownerId: k.ownerId, key: k.key },
      ),
    );
    rules.checkKey(
      k.currentIds,
      found.map((r) => r.id),
    );
  }
  const nextRid = new Map(locked.map((o) => [o.ownerId, num(o.nextRid)]));
  const rowsToInsert = batch.memories.map((w) => {
    const rid = nextRid.get(w.memory.ownerId) ?? 0;
    nextRid.set(w.memory.ownerId, rid + 1);
    return {
      // rid: insertion order within the owner, the tie-break of getByKey.
      props: { ...memoryToProps(w.memory), rid: int(rid) },
      embedding: w.embedding ? Array.from(w.embedding) : null,
    };
  });
  await tx.run(cypher('insert-memories'), { rows: rowsToInsert });
  await tx.run(cypher('update-owners'), {
    owners: owners.map((ownerId) => ({
      ownerId,
      nextRid: int(nextRid.get(ownerId) ?? 0),
      added: int(added.get(ownerId) ?? 0),
    })),
  });
}

/** Append session messages in order, numbering them per session. */
async function insertSessionMessages(tx: Tx, messages: readonly SessionMessage[]): Promise<void> {
  const keyOf = (m: { ownerId: string; sessionId: string }): string =>
    JSON.stringify([m.ownerId, m.sessionId]);
  const sessions = [
    ...new Map(
      messages.map((m) => [keyOf(m), { ownerId: m.ownerId, sessionId: m.sessionId }]),
    ).values(),
  ];
  sessions.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  const locked = rows<{ ownerId: string; sessionId: string; nextSeq: unknown }>(
    await tx.run(cypher('lock-sessions'), { sessions }),
  );
  const next = new Map(locked.map((s) => [keyOf(s), num(s.nextSeq)]));
  const params = messages.map((m) => {
    const seq = (next.get(keyOf(m)) ?? 0) + 1;
    next.set(keyOf(m), seq);
    return {
      ownerId: m.ownerId,
      sessionId: m.sessionId,
      seq: int(seq),
      role: m.role,
      text: m.text,
      at: m.at,
      atMs: toMs(m.at, 'message.at'),
      expiresAt: m.expiresAt,
      expiresMs: toMs(m.expiresAt, 'message.expiresAt'),
      memoryId: m.memoryId,
      writerPrincipal: m.writer?.principal ?? null,
      writerRole: m.writer?.role ?? null,
    };
  });
  await tx.run(cypher('insert-session-messages'), {
    messages: params,
    sessions: sessions.map((s) => ({ ...s, nextSeq: int(next.get(keyOf(s)) ?? 0) })),
  });
}

/** Apply a WriteBatch atomically (the kit has checked its shape: checkWriteBatch). */
export async function writeBatch(ctx: StoreContext, batch: WriteBatch): Promise<void> {
  const memories = batch.memories.map((w) => w.memory);
  const marks = batch.supersede.map((s) => ({ ...s, atMs: toMs(s.at, 'supersede.at') }));
  // Fixed before the transaction: a retried transaction records the same time.
  const recordedAt = ctx.rules.outboxRecordedAt(batch);
  await inWrite(ctx, async (tx) => {
    if (memories.length) {
      await insertMemories(tx, ctx.rules, batch);
      await linkMemories(tx, memories);
      // Edges after all inserts, so a batch may hold a summary and its sources.
      await linkDerivedFrom(tx, memories);
    }
    if (marks.length) await tx.run(cypher('mark-superseded'), { marks });
    if (memories.length) await linkSupersedes(tx, memories);
    if (batch.sessionMessages.length) await insertSessionMessages(tx, batch.sessionMessages);
    if (batch.reflected?.length) await markReflected(tx, batch.reflected);
    if (batch.jobs?.length) await recordJobs(tx, batch.jobs, recordedAt);
    await recordPasses(tx, batch);
    await appendAuditEvents(tx, ctx.rules, batch.audit);
  });
}
