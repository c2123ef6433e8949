// Appends to and reads the hash-chained audit log. Appending must happen
// inside the caller's write transaction: the tail (seq, hash) is read and
// extended under the same lock, so concurrent writers cannot fork the chain.
import type { AuditEvent, AuditEventInput } from '@keepgraph/core';
import type { Statements } from './queries.ts';
import type { StoreContext } from './store-context.ts';

interface AuditRow {
  seq: number;
  type: string;
  at: string;
  owner_id: string | null;
  actor: string;
  role: string;
  memory_ids_json: string;
  content_hashes_json: string;
  reason: string | null;
  details_json: string;
  prev_hash: string;
  hash: string;
}

/** Seal (by the context's rules) and insert events after the current tail. Call inside a transaction. */
export function appendAuditEvents(
  { st, rules }: Pick<StoreContext, 'st' | 'rules'>,
  events: readonly AuditEventInput[],
): AuditEvent[] {
  if (events.length === 0) return [];
  const tail = st.sql('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1').get() as
    { seq: number; hash: string } | undefined;
  let seq = tail?.seq ?? 0;
  let prev = tail?.hash ?? rules.genesisHash;
  const insert = st.file('insert-audit-event');
  const sealed: AuditEvent[] = [];
  for (const input of events) {
    seq += 1;
    const e = rules.sealAudit(input, seq, prev);
    insert.run({
      seq: e.seq,
      type: e.type,
      at: e.at,
      owner_id: e.ownerId,
      actor: e.actor,
      role: e.role,
      memory_ids_json: JSON.stringify(e.memoryIds),
      content_hashes_json: JSON.stringify(e.contentHashes),
      reason: e.reason,
      details_json: JSON.stringify(e.details),
      prev_hash: e.prevHash,
      hash: e.hash,
    });
    sealed.push(e);
    prev = e.hash;
  }
  return sealed;
}

function rowToEvent(r: AuditRow): AuditEvent {
  return {
    type: r.type as AuditEvent['type'],
    at: r.at,
    ownerId: r.owner_id,
    actor: r.actor,
    role: r.role,
    memoryIds: JSON.parse(r.memory_ids_json) as string[],
    contentHashes: JSON.parse(r.content_hashes_json) as string[],
    reason: r.reason,
    details: JSON.parse(r.details_json) as Record<string, unknown>,
    seq: r.seq,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** Events in seq order, optionally one owner's, after `afterSeq`. */
export function listAuditEvents(
  st: Statements,
  opts: { ownerId?: string; afterSeq?: number; limit: number },
): AuditEvent[] {
  const rows = st
    .sql(
      `SELECT * FROM audit_events
        WHERE seq > @afterSeq AND (@ownerId IS NULL OR owner_id = @ownerId)
        ORDER BY seq LIMIT @limit`,
    )
    .all({
      afterSeq: opts.afterSeq ?? 0,
      ownerId: opts.ownerId ?? null,
      limit: opts.limit,
    }) as AuditRow[];
  return rows.map(rowToEvent);
}
