// MemoryStore.findTraces: proves a deletion by looking for the deleted ids
// and content hashes in every node, edge and index that can hold them. The
// audit log and read log are deliberately not searched: they are the record
// of the deletion and by design hold ids and hashes only (invariant 11).
// The outbox (OutboxJob nodes) is not searched either: its jobs name
// memories by id only (a rederive job names the deleted derived memory so it
// can be rebuilt), like the audit log, and each entry is removed once the
// relay has handed it to the queue; reporting them would make every cascade
// with a re-derivation look unfinished until the relay ran.
// The vector index cannot be probed without the deleted vector; its entries
// are derived from Memory.embedding in the same transaction, so the Memory
// probe (and the store tests, which query the index with the vector) cover it.
import type { Trace } from '@keepgraph/core/ports';
import { NEO4J_INDEXES } from '@keepgraph/graph-schema';
import { ownerKey } from './record-mapping.ts';
import type { StoreContext } from './store-context.ts';
import { int, num, readRows } from './transactions.ts';

/** One lookup: where it looks, and a query returning (id, detail) rows. */
interface Probe {
  where: string;
  cypher: string;
}

/** Most full-text documents of one owner scanned by the index probe. */
const MAX_INDEX_SCAN = 100_000;

// Every probe takes $ownerId, $ids and $hashes (lists).
const PROBES: Probe[] = [
  {
    where: 'Memory',
    cypher: `MATCH (m:Memory) WHERE m.ownerId = $ownerId AND (m.id IN $ids OR m.contentHash IN $hashes)
             RETURN m.id AS id, CASE WHEN m.id IN $ids THEN 'id' ELSE 'content_hash' END AS detail`,
  },
  {
    where: 'Memory.supersedes',
    cypher: `MATCH (m:Memory {ownerId: $ownerId}) WHERE m.supersedes IN $ids OR m.supersededBy IN $ids
             RETURN CASE WHEN m.supersedes IN $ids THEN m.supersedes ELSE m.supersededBy END AS id,
                    'referenced by ' + m.id AS detail`,
  },
  {
    where: 'DERIVED_FROM',
    cypher: `MATCH (c:Memory)-[:DERIVED_FROM]->(s:Memory)
             WHERE (c.id IN $ids OR s.id IN $ids) AND c.ownerId = $ownerId
             RETURN c.id AS id, 'source ' + s.id AS detail`,
  },
  {
    where: 'Memory edges',
    cypher: `MATCH (m:Memory)-[e]-() WHERE m.id IN $ids AND m.ownerId = $ownerId
             RETURN m.id AS id, type(e) AS detail`,
  },
  {
    where: 'RELATION.assertedBy',
    cypher: `MATCH (:Entity)-[r:RELATION]->(:Entity)
             WHERE r.ownerId = $ownerId AND any(x IN r.assertedBy WHERE x IN $ids)
             UNWIND [x IN r.assertedBy WHERE x IN $ids] AS id
             RETURN id, 'relation ' + r.type AS detail`,
  },
  {
    where: 'SessionMessage',
    cypher: `MATCH (x:SessionMessage) WHERE x.memoryId IN $ids AND x.ownerId = $ownerId
             RETURN x.memoryId AS id, 'message ' + toString(x.seq) AS detail`,
  },
  {
    where: 'IdempotencyRecord',
    cypher: `MATCH (r:IdempotencyRecord) WHERE r.ownerId = $ownerId AND any(x IN r.memoryIds WHERE x IN $ids)
             UNWIND [x IN r.memoryIds WHERE x IN $ids] AS id
             RETURN id, 'key ' + r.key AS detail`,
  },
  {
    // The full-text index itself, asked for every document of this owner.
    where: NEO4J_INDEXES.memoryText,
    cypher: `CALL db.index.fulltext.queryNodes($textIndex, $ownerQuery, {limit: $scan}) YIELD node
             WITH node WHERE node.id IN $ids OR node.contentHash IN $hashes
             RETURN node.id AS id, 'full-text document' AS detail`,
  },
];

/** Every place the ids or hashes still appear for this owner; [] means gone. */
export async function findTraces(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
  hashes: readonly string[],
): Promise<Trace[]> {
  const params = {
    ownerId,
    ids: [...ids],
    hashes: [...hashes],
    textIndex: NEO4J_INDEXES.memoryText,
    ownerQuery: `ownerKey:${ownerKey(ownerId)}`,
    scan: int(MAX_INDEX_SCAN),
  };
  const traces: Trace[] = [];
  for (const probe of PROBES) {
    for (const r of await readRows<{ id: string | null; detail: string }>(
      ctx,
      probe.cypher,
      params,
    )) {
      traces.push({ where: probe.where, ...(r.id === null ? {} : { id: r.id }), detail: r.detail });
    }
  }

  // Session-buffer copies written without a memoryId link are found by the
  // hash of their text.
  if (hashes.length > 0) {
    const wanted = new Set(hashes);
    const messages = await readRows<{ seq: unknown; text: string }>(
      ctx,
      'MATCH (x:SessionMessage {ownerId: $ownerId}) RETURN x.seq AS seq, x.text AS text',
      { ownerId },
    );
    for (const m of messages) {
      if (wanted.has(ctx.rules.contentHash(m.text))) {
        traces.push({
          where: 'SessionMessage',
          detail: `message ${num(m.seq)} text matches a content hash`,
        });
      }
    }
  }
  return traces;
}
