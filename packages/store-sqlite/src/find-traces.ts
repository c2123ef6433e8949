// MemoryStore.findTraces: proves a deletion by looking for the deleted ids
// and content hashes in every table and index that can hold them. The audit
// log and read log are deliberately not searched: they are the record of
// the deletion and by design hold ids and hashes only (invariant 11).
// The outbox is not searched either: its jobs name memories by id only (a
// rederive job names the deleted derived memory so it can be rebuilt), like
// the audit log, and each entry is removed once the relay has handed it to
// the queue; reporting them would make every cascade with a re-derivation
// look unfinished until the relay ran.
import type { Trace } from '@keepgraph/core/ports';
import type { StoreContext } from './store-context.ts';
import { VECTOR_TABLE } from './vector-table.ts';

/** One lookup: the table it names, and a query returning (id, detail) rows. */
interface Probe {
  where: string;
  sql: string;
}

// Every probe takes @ownerId, @ids and @hashes (JSON arrays).
const IN_IDS = '(SELECT value FROM json_each(@ids))';
const IN_HASHES = '(SELECT value FROM json_each(@hashes))';

/** A probe of a link table keyed by memory id: where it still names one of the ids. */
function linkedTo(table: string, label: string, column: string): Probe {
  return {
    where: table,
    sql: `SELECT memory_id AS id, '${label} ' || ${column} AS detail FROM ${table}
           WHERE owner_id = @ownerId AND memory_id IN ${IN_IDS}`,
  };
}

const PROBES: Probe[] = [
  {
    where: 'memories',
    sql: `SELECT id, CASE WHEN id IN ${IN_IDS} THEN 'id' ELSE 'content_hash' END AS detail
            FROM memories WHERE owner_id = @ownerId AND (id IN ${IN_IDS} OR content_hash IN ${IN_HASHES})`,
  },
  {
    where: 'memories.supersedes',
    sql: `SELECT CASE WHEN supersedes IN ${IN_IDS} THEN supersedes ELSE superseded_by END AS id,
                 'referenced by ' || id AS detail FROM memories
           WHERE owner_id = @ownerId AND (supersedes IN ${IN_IDS} OR superseded_by IN ${IN_IDS})`,
  },
  {
    where: 'memory_fts_terms',
    sql: `SELECT memory_id AS id, 'rowid ' || rowid AS detail FROM memory_fts_terms
           WHERE owner_id = @ownerId AND (memory_id IN ${IN_IDS} OR content_hash IN ${IN_HASHES})`,
  },
  {
    where: 'derived_from',
    sql: `SELECT child_id AS id, 'source ' || source_id AS detail FROM derived_from
           WHERE owner_id = @ownerId AND (child_id IN ${IN_IDS} OR source_id IN ${IN_IDS})`,
  },
  linkedTo('memory_about', 'entity', 'entity_id'),
  linkedTo('relation_assertions', 'relation', 'relation_id'),
  linkedTo('memory_sources', 'source', 'source_id'),
  linkedTo('session_messages', 'message', 'seq'),
  {
    where: 'idempotency',
    sql: `SELECT n.value AS id, 'key ' || i.key AS detail FROM idempotency i, json_each(i.memory_ids_json) n
           WHERE i.owner_id = @ownerId AND n.value IN ${IN_IDS}`,
  },
];

/** Every place the ids or hashes still appear for this owner; [] means gone. */
export function findTraces(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
  hashes: readonly string[],
): Trace[] {
  const params = { ownerId, ids: JSON.stringify(ids), hashes: JSON.stringify(hashes) };
  const traces: Trace[] = [];
  for (const probe of PROBES) {
    for (const r of ctx.st.sql(probe.sql).all(params) as { id: string | null; detail: string }[]) {
      traces.push({ where: probe.where, ...(r.id === null ? {} : { id: r.id }), detail: r.detail });
    }
  }

  // The vector table, by its primary key, and the owner's in-memory index.
  const vec = ctx.st.sql(`SELECT memory_id, owner_id FROM ${VECTOR_TABLE} WHERE memory_id = ?`);
  for (const id of new Set(ids)) {
    const row = vec.get(id) as { memory_id: string; owner_id: string } | undefined;
    if (row && row.owner_id === ownerId)
      traces.push({ where: VECTOR_TABLE, id, detail: 'embedding' });
    if (ctx.vectors.holds(ownerId, id))
      traces.push({ where: 'vector_index', id, detail: 'in-memory index entry' });
  }

  // Session-buffer copies written without a memoryId link are found by the
  // hash of their text.
  if (hashes.length > 0) {
    const wanted = new Set(hashes);
    const messages = ctx.st
      .sql('SELECT seq, text FROM session_messages WHERE owner_id = ?')
      .iterate(ownerId) as IterableIterator<{ seq: number; text: string }>;
    for (const m of messages) {
      if (wanted.has(ctx.rules.contentHash(m.text))) {
        traces.push({
          where: 'session_messages',
          detail: `message ${m.seq} text matches a content hash`,
        });
      }
    }
  }
  return traces;
}
