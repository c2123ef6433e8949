// Appends to and reads the hash-chained audit log. Appending happens inside
// the caller's write transaction: the chain head is locked, read and moved
// in that transaction, so concurrent writers cannot fork the chain.
import type { AuditEvent, AuditEventInput } from '@keepgraph/core';
import type { StoreRules } from '@keepgraph/core/ports';
import { cypher } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { int, num, readRows, rows } from './transactions.ts';
import type { Tx } from './transactions.ts';

/** Seal (by `rules`) and append events after the current head. Call inside a write transaction. */
export async function appendAuditEvents(
  tx: Tx,
  rules: StoreRules,
  events: readonly AuditEventInput[],
): Promise<AuditEvent[]> {
  if (events.length === 0) return [];
  const [head] = rows<{ seq: unknown; hash: string }>(
    await tx.run(cypher('audit-head-lock'), { genesis: rules.genesisHash }),
  );
  let seq = head ? num(head.seq) : 0;
  let prev = head?.hash ?? rules.genesisHash;
  const sealed: AuditEvent[] = [];
  for (const input of events) {
    seq += 1;
    const e = rules.sealAudit(input, seq, prev);
    sealed.push(e);
    prev = e.hash;
  }
  await tx.run(cypher('insert-audit-events'), {
    events: sealed.map((e) => ({
      seq: int(e.seq),
      type: e.type,
      at: e.at,
      ownerId: e.ownerId,
      actor: e.actor,
      role: e.role,
      // JSON strings: an empty list and the exact element types survive.
      memoryIds: JSON.stringify(e.memoryIds),
      contentHashes: JSON.stringify(e.contentHashes),
      reason: e.reason,
      details: JSON.stringify(e.details),
      prevHash: e.prevHash,
      hash: e.hash,
    })),
    seq: int(seq),
    hash: prev,
  });
  return sealed;
}

interface AuditRow {
  e: Record<string, unknown>;
}

function toEvent(p: Record<string, unknown>): AuditEvent {
  return {
    type: String(p.type) as AuditEvent['type'],
    at: String(p.at),
    ownerId: p.ownerId === null || p.ownerId === undefined ? null : String(p.ownerId),
    actor: String(p.actor),
    role: String(p.role),
    memoryIds: JSON.parse(String(p.memoryIds)) as string[],
    contentHashes: JSON.parse(String(p.contentHashes)) as string[],
    reason: p.reason === null || p.reason === undefined ? null : String(p.reason),
    details: JSON.parse(String(p.details)) as Record<string, unknown>,
    seq: num(p.seq),
    prevHash: String(p.prevHash),
    hash: String(p.hash),
  };
}

/** Events in seq order, optionally one owner's, after `afterSeq`. */
export async function listAuditEvents(
  ctx: StoreContext,
  opts: { ownerId?: string; afterSeq?: number; limit: number },
): Promise<AuditEvent[]> {
  const found = await readRows<AuditRow>(
    ctx,
    `MATCH (e:AuditEvent)
      WHERE e.seq > $afterSeq AND ($ownerId IS NULL OR e.ownerId = $ownerId)
     RETURN e {.*} AS e ORDER BY e.seq LIMIT $limit`,
    {
      afterSeq: int(opts.afterSeq ?? 0),
      ownerId: opts.ownerId ?? null,
      limit: int(Math.max(0, opts.limit)),
    },
  );
  return found.map((r) => toEvent(r.e));
}
