// An owner's graph as comparable data: every memory (current or superseded)
// by content rather than id, with its sources and versions by content too,
// and the relation edges with their asserting memories' texts. Two runs of
// the same work on different owners (or stores) compare equal when they
// derived the same things from the same sources.
import type { Memory } from '@keepgraph/core';
import type { MemoryStore } from '@keepgraph/core/ports';

export interface MemorySnapshot {
  kind: string;
  text: string;
  authority: string;
  key: string | null;
  confidence: number;
  tags: string[];
  conflict: boolean;
  current: boolean;
  derivedFrom: string[];
  supersedes: string | null;
  extractor: string | null;
  sourceOrigins: string[];
  relations: string[];
}

export async function graphSnapshot(store: MemoryStore, ownerId: string) {
  const all: Memory[] = await store.getByIds(ownerId, await store.listIds(ownerId));
  const textOf = new Map(all.map((m) => [m.id, `${m.kind}:${m.text}`]));
  const name = (id: string | null) => (id === null ? null : (textOf.get(id) ?? `missing:${id}`));
  const memories: MemorySnapshot[] = all
    .map((m) => ({
      kind: m.kind,
      text: m.text,
      authority: m.authority,
      // Compaction keys name the cluster's oldest member by id.
      key: m.key?.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, (id) => name(id)!) ?? null,
      confidence: Math.round(m.confidence * 1000) / 1000,
      tags: [...m.tags].sort(),
      conflict: m.conflict,
      current: m.supersededBy === null,
      derivedFrom: m.derivedFrom.map((id) => name(id)!).sort(),
      supersedes: name(m.supersedes),
      extractor: m.origin.extractor?.name ?? null,
      sourceOrigins: m.sourceOrigins.map((o) => `${o.sessionId ?? ''}#${o.turn ?? ''}`).sort(),
      relations: m.relations
        .map((r) => `${r.subject.name} ${r.type} ${r.object.name} | ${r.reason ?? ''}`)
        .sort(),
    }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const relations = (await store.relations(ownerId))
    .map(
      (r) =>
        `${r.subject.name} ${r.type} ${r.object.name} | ${[...r.reasons].sort().join('; ')} | ${r.assertedBy
          .map((id) => name(id))
          .sort()
          .join(' + ')}`,
    )
    .sort();
  return { memories, relations };
}
