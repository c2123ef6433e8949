// Writes the graph edges hanging off a new memory: ABOUT entities, relation
// edges with their assertions, FROM_SOURCE sources and DERIVED_FROM edges.
// Called inside the write transaction, after the batch's memories exist.
import { KeepGraphError } from '@keepgraph/core';
import type { EntityRef, Memory, Origin } from '@keepgraph/core';
import { normalizeEntityName } from '@keepgraph/graph-schema';
import type { Statements } from './queries.ts';

/** Find or create the owner's entity; returns its row id. */
export function upsertEntity(st: Statements, ownerId: string, ref: EntityRef): number {
  const row = st
    .sql(
      `INSERT INTO entities (owner_id, name_norm, name, type) VALUES (@ownerId, @norm, @name, @type)
       ON CONFLICT (owner_id, name_norm, type) DO UPDATE SET name = entities.name
       RETURNING id`,
    )
    .get({
      ownerId,
      norm: normalizeEntityName(ref.name),
      name: ref.name.trim(),
      type: ref.type || 'thing',
    }) as {
    id: number;
  };
  return row.id;
}

/** ABOUT links and relation edges (with this memory as an asserting one). */
export function linkEntities(st: Statements, m: Memory): void {
  const about = st.sql(
    'INSERT INTO memory_about (owner_id, memory_id, entity_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  for (const ref of m.about) about.run(m.ownerId, m.id, upsertEntity(st, m.ownerId, ref));

  const relation = st.sql(
    `INSERT INTO relations (owner_id, subject_id, type, object_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (owner_id, subject_id, type, object_id) DO UPDATE SET type = relations.type
     RETURNING id`,
  );
  const assertion = st.sql(
    `INSERT INTO relation_assertions (relation_id, owner_id, memory_id, reason) VALUES (?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  for (const r of m.relations) {
    const subject = upsertEntity(st, m.ownerId, r.subject);
    const object = upsertEntity(st, m.ownerId, r.object);
    const { id } = relation.get(m.ownerId, subject, r.type, object) as { id: number };
    assertion.run(id, m.ownerId, m.id, r.reason ?? null);
  }
}

/** The (kind, uri) sources an origin names: its document/URL and its tool. */
function originSources(o: Origin): { kind: string; uri: string }[] {
  const out: { kind: string; uri: string }[] = [];
  if (o.source) out.push({ kind: o.source.kind, uri: o.source.uri });
  // A tool is a source too: revoking a misbehaving tool must find its memories.
  if (o.tool) out.push({ kind: 'tool', uri: o.tool.name });
  return out;
}

/** FROM_SOURCE links for the memory's own origin and its inherited ones. */
export function linkSources(st: Statements, m: Memory): void {
  const source = st.sql(
    `INSERT INTO sources (kind, uri) VALUES (?, ?)
     ON CONFLICT (kind, uri) DO UPDATE SET kind = sources.kind RETURNING id`,
  );
  const link = st.sql(
    'INSERT INTO memory_sources (owner_id, memory_id, source_id, inherited) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const add = (o: Origin, inherited: number): void => {
    for (const s of originSources(o)) {
      const { id } = source.get(s.kind, s.uri) as { id: number };
      link.run(m.ownerId, m.id, id, inherited);
    }
  };
  add(m.origin, 0);
  for (const o of m.sourceOrigins) add(o, 1);
}

/**
 * DERIVED_FROM edges. Every source must be a memory of the same owner:
 * an edge to another owner's memory would let a cascade (or a lineage
 * query) cross owners, so the whole batch is refused instead.
 */
export function linkDerivedFrom(st: Statements, m: Memory): void {
  const exists = st.sql('SELECT 1 FROM memories WHERE owner_id = ? AND id = ?');
  const edge = st.sql(
    'INSERT INTO derived_from (owner_id, child_id, source_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  for (const sourceId of new Set(m.derivedFrom)) {
    if (sourceId === m.id) {
      throw new KeepGraphError('invalid_input', 'a memory cannot be derived from itself', {
        id: m.id,
      });
    }
    if (!exists.get(m.ownerId, sourceId)) {
      throw new KeepGraphError(
        'invalid_input',
        'derivedFrom names a memory this owner does not have',
        {
          id: m.id,
          sourceId,
        },
      );
    }
    edge.run(m.ownerId, m.id, sourceId);
  }
}
