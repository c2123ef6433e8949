// Compaction: clusters of near-duplicate memories (same kind, cosine above
// the policy's threshold, connected components of the similarity graph)
// become one summary with DERIVED_FROM to every member and the union of
// their origins. Members stay until their own expiry but are no longer
// recalled while a live summary covers them (see recall). A cluster that
// grows gets a new summary that supersedes the old one (same key: the
// cluster's oldest member). Deleting or expiring a member deletes the
// summary (the cascade) and its `rederive` job compacts the owner again,
// which rebuilds it from the survivors.
import type { Memory } from '../record.ts';
import type { EngineDeps } from '../use-cases/deps.ts';
import { clustersOf, cosine } from './group-episodes.ts';
import {
  COMPACTION_CALLER,
  derivedId,
  derivedInput,
  vectorsOf,
  writeDerived,
  type DerivedWrite,
} from './derived-writes.ts';

export const COMPACTION_TAG = 'compaction';
export const COMPACTION_EXTRACTOR = { name: 'keepgraph-compaction', version: '1' } as const;

/** A live summary written by compaction. */
export function isCompactionSummary(m: Memory): boolean {
  return m.kind === 'summary' && m.tags.includes(COMPACTION_TAG);
}

function isLive(m: Memory, now: string): boolean {
  return m.expiresAt > now && m.supersededBy === null && (m.validTo === null || m.validTo > now);
}

/** The member closest to all the others: its text speaks for the cluster. */
function medoid(members: readonly Memory[], vectors: ReadonlyMap<string, Float32Array>): Memory {
  let best = members[0]!;
  let bestScore = -Infinity;
  for (const m of members) {
    const v = vectors.get(m.id);
    if (!v) continue;
    let sum = 0;
    for (const o of members) if (o !== m) sum += cosine(v, vectors.get(o.id) ?? v);
    if (sum > bestScore) {
      bestScore = sum;
      best = m;
    }
  }
  return best;
}

/** The summary of a cluster, as a derived write (deterministic id from its members). */
function summaryOf(
  ownerId: string,
  members: readonly Memory[],
  vectors: ReadonlyMap<string, Float32Array>,
): DerivedWrite {
  const ids = members.map((m) => m.id).sort();
  const centre = medoid(members, vectors);
  const oldest = [...members].sort((a, b) =>
    a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? -1 : 1,
  )[0]!;
  const about = new Map(members.flatMap((m) => m.about).map((e) => [`${e.type}:${e.name}`, e]));
  return {
    id: derivedId(['compact', ownerId, ...ids]),
    input: derivedInput({
      kind: 'summary',
      key: `compaction:${oldest.id}`,
      text: centre.text,
      authority: 'agent_inferred',
      confidence: Math.max(...members.map((m) => m.confidence)),
      derivedFrom: ids,
      about: [...about.values()].slice(0, 64),
      tags: [COMPACTION_TAG],
      origin: { extractor: COMPACTION_EXTRACTOR },
    }),
  };
}

export interface CompactionRun {
  scanned: number;
  clusters: number;
  written: string[];
}

/** Find near-duplicate clusters among the owner's most recent source memories and summarise each. */
export async function compact(deps: EngineDeps, ownerId: string): Promise<CompactionRun> {
  const cfg = deps.policy.background.compaction;
  const now = deps.clock.now().toISOString();
  const recent: Memory[] = [];
  for (let after: string | undefined; ; ) {
    const ids = await deps.store.listIds(ownerId, { ...(after ? { after } : {}), limit: 2000 });
    if (ids.length === 0) break;
    after = ids[ids.length - 1];
    const rows = await deps.store.getByIds(ownerId, ids);
    // Only source memories: summaries and reflections are not compacted again.
    recent.push(...rows.filter((m) => isLive(m, now) && m.derivedFrom.length === 0));
  }
  recent.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  // Members of existing summaries take part: a cluster that grew is summarised
  // anew (superseding the old summary); an unchanged one has the same id and
  // is left as it is.
  const candidates = recent.slice(0, cfg.scanLimit).reverse();
  const run: CompactionRun = { scanned: candidates.length, clusters: 0, written: [] };
  if (candidates.length < cfg.minCluster) return run;

  const vectors = await vectorsOf(deps, ownerId, candidates);
  const items: DerivedWrite[] = [];
  const byKind = new Map<string, Memory[]>();
  for (const m of candidates) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m]);
  const byId = new Map(candidates.map((m) => [m.id, m]));
  for (const members of byKind.values()) {
    const clusters = clustersOf(
      members.map((m) => ({ id: m.id, vector: vectors.get(m.id)! })),
      cfg.similarity,
      cfg.minCluster,
    );
    for (const c of clusters) items.push(summaryOf(ownerId, c.map((id) => byId.get(id)!), vectors));
  }
  run.clusters = items.length;
  const r = await writeDerived(deps, COMPACTION_CALLER, ownerId, items);
  run.written = [...r.written.map((m) => m.id), ...r.alreadyThere];
  return run;
}
