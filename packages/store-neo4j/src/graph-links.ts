// Builds and writes the graph edges hanging off new memories: OBSERVED_IN
// sessions, ABOUT entities, relation edges with their assertions,
// FROM_SOURCE sources, DERIVED_FROM and SUPERSEDES. Called inside the write
// transaction, after the batch's memories exist.
import { KeepGraphError } from '@keepgraph/core';
import type { Memory, Origin } from '@keepgraph/core';
import { normalizeEntityName } from '@keepgraph/graph-schema';
import { cypher } from './queries.ts';
import { rows } from './transactions.ts';
import type { Tx } from './transactions.ts';

/** An entity as the link statements key it. */
function entityKey(ref: { name: string; type: string }): {
  normName: string;
  name: string;
  type: string;
} {
  return {
    normName: normalizeEntityName(ref.name),
    name: ref.name.trim(),
    type: ref.type || 'thing',
  };
}

/** The (kind, uri) sources an origin names: its document/URL and its tool. */
function originSources(o: Origin): { kind: string; uri: string }[] {
  const out: { kind: string; uri: string }[] = [];
  if (o.source) out.push({ kind: o.source.kind, uri: o.source.uri });
  // A tool is a source too: revoking a misbehaving tool must find its memories.
  if (o.tool) out.push({ kind: 'tool', uri: o.tool.name });
  return out;
}

/** OBSERVED_IN, ABOUT, relation and FROM_SOURCE links of these memories. */
export async function linkMemories(tx: Tx, memories: readonly Memory[]): Promise<void> {
  const sessions: Record<string, unknown>[] = [];
  const about: Record<string, unknown>[] = [];
  const relations: Record<string, unknown>[] = [];
  const sources: { memoryId: string; kind: string; uri: string; inherited: boolean }[] = [];
  for (const m of memories) {
    if (m.origin.sessionId !== undefined) {
      sessions.push({
        memoryId: m.id,
        ownerId: m.ownerId,
        sessionId: m.origin.sessionId,
        turn: m.origin.turn ?? null,
      });
    }
    for (const ref of m.about)
      about.push({ memoryId: m.id, ownerId: m.ownerId, ...entityKey(ref) });
    for (const r of m.relations) {
      relations.push({
        memoryId: m.id,
        ownerId: m.ownerId,
        type: r.type,
        reason: r.reason ?? '',
        subject: entityKey(r.subject),
        object: entityKey(r.object),
      });
    }
    const seen = new Set<string>();
    const add = (o: Origin, inherited: boolean): void => {
      for (const s of originSources(o)) {
        const k = JSON.stringify([s.kind, s.uri, inherited]);
        if (seen.has(k)) continue;
        seen.add(k);
        sources.push({ memoryId: m.id, kind: s.kind, uri: s.uri, inherited });
      }
    };
    add(m.origin, false);
    for (const o of m.sourceOrigins) add(o, true);
  }
  if (sessions.length) await tx.run(cypher('link-sessions'), { links: sessions });
  if (about.length) await tx.run(cypher('link-about'), { links: about });
  if (relations.length) await tx.run(cypher('link-relations'), { links: relations });
  if (sources.length) await tx.run(cypher('link-sources'), { links: sources });
}

/**
 * DERIVED_FROM edges. Every source must be a memory of the same owner:
 * an edge to another owner's memory would let a cascade (or a lineage
 * query) cross owners, so the whole batch is refused instead.
 */
export async function linkDerivedFrom(tx: Tx, memories: readonly Memory[]): Promise<void> {
  const edges: { childId: string; sourceId: string; ownerId: string }[] = [];
  for (const m of memories) {
    for (const sourceId of new Set(m.derivedFrom)) {
      if (sourceId === m.id) {
        throw new KeepGraphError('invalid_input', 'a memory cannot be derived from itself', {
          id: m.id,
        });
      }
      edges.push({ childId: m.id, sourceId, ownerId: m.ownerId });
    }
  }
  if (edges.length === 0) return;
  const checked = rows<{ childId: string; sourceId: string; found: boolean }>(
    await tx.run(cypher('check-derived'), { edges }),
  );
  const missing = checked.find((r) => !r.found);
  if (missing) {
    throw new KeepGraphError(
      'invalid_input',
      'derivedFrom names a memory this owner does not have',
      {
        id: missing.childId,
        sourceId: missing.sourceId,
      },
    );
  }
  await tx.run(cypher('link-derived'), { edges });
}

/** SUPERSEDES edges for new memories that name the version they replace. */
export async function linkSupersedes(tx: Tx, memories: readonly Memory[]): Promise<void> {
  const links = memories
    .filter((m) => m.supersedes !== null)
    .map((m) => ({ newId: m.id, oldId: m.supersedes }));
  if (links.length) await tx.run(cypher('link-supersedes'), { links });
}
