// Compaction: clusters of near-duplicate memories (same kind and, for
// third-party content, same authority; cosine above the policy's threshold
// and most content words shared, connected
// components of that graph) become one summary with DERIVED_FROM to every
// member and the union of their origins. The summary is one more key to its
// members; recall hides a member behind it only when the summary's text
// carries every content word of the member's (derived-keys.ts). A cluster that
// grows, or joins another, gets one new summary over all of their members
// that supersedes the summaries it replaces (keeping the oldest one's key).
// Deleting or expiring a member deletes the summary (the cascade) and its
// `rederive` job compacts the owner again, which rebuilds it from the
// survivors.
import type { Memory } from '../domain/record.ts';
import { isLiveAt } from '../domain/liveness.ts';
import { COMPACTION_TAG, isCompactionSummary } from '../domain/derived-kinds.ts';
import type { EngineDeps } from '../services/deps.ts';
import { derivedAuthority } from '../services/write.ts';
import { clustersOf, cosine } from './group-episodes.ts';
import { contentWords, jaccard } from '../domain/word-overlap.ts';
import {
  COMPACTION_CALLER,
  derivedInput,
  vectorsOf,
  writeDerived,
  type DerivedWrite,
} from './derived-writes.ts';

export const COMPACTION_EXTRACTOR = { name: 'keepgraph-compaction', version: '1' } as const;

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

const byAge = (a: Memory, b: Memory) =>
  a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? -1 : 1;

/**
 * The summary of a cluster, as a derived write (deterministic id from its
 * members). `replaces`: the live summaries its members already belong to;
 * the new one takes over their members and the oldest one's key, and
 * supersedes them all.
 */
function summaryOf(
  ownerId: string,
  cluster: readonly Memory[],
  replaces: readonly { summary: Memory; members: Memory[] }[],
  vectors: ReadonlyMap<string, Float32Array>,
  maxSources: number,
): DerivedWrite {
  const members = new Map(cluster.map((m) => [m.id, m]));
  for (const r of replaces) for (const m of r.members) members.set(m.id, m);
  // Oldest first: the summary's lineage reads in the order its members were
  // written (the cluster comes in write order; members of the summaries it
  // replaces that fell out of the scan window are older still).
  const position = new Map(cluster.map((m, i) => [m.id, i]));
  // A summary names at most the policy's limits.derivedFrom members, the
  // newest: a cluster past it still gets one key, and the members left out
  // are never hidden behind a summary that does not name them.
  const all = [...members.values()]
    .sort((a, b) => (position.get(a.id) ?? -1) - (position.get(b.id) ?? -1) || byAge(a, b))
    .slice(-maxSources);
  const ids = all.map((m) => m.id);
  const named = new Set(ids);
  const inCluster = cluster.filter((m) => named.has(m.id));
  const centre = medoid(inCluster.length > 0 ? inCluster : cluster, vectors);
  const previous = replaces.map((r) => r.summary).sort(byAge);
  const key = previous[0]?.key ?? `compaction:${all[0]!.id}`;
  const about = new Map(all.flatMap((m) => m.about).map((e) => [`${e.type}:${e.name}`, e]));
  return {
    idParts: ['compact', ownerId, ...[...ids].sort()],
    alsoSupersedes: previous.map((s) => s.id),
    input: derivedInput({
      kind: 'summary',
      key,
      text: centre.text,
      authority: 'agent_inferred',
      confidence: Math.max(...all.map((m) => m.confidence)),
      derivedFrom: ids,
      about: [...about.values()].slice(0, 64),
      tags: [COMPACTION_TAG],
      origin: { extractor: COMPACTION_EXTRACTOR },
    }),
  };
}

/** The live compaction summaries these memories belong to, with all their live members. */
async function summariesHolding(
  deps: EngineDeps,
  ownerId: string,
  memories: readonly Memory[],
  now: string,
) {
  const edges = await deps.store.derivedFrom(
    ownerId,
    memories.map((m) => m.id),
  );
  const children = await deps.store.getByIds(ownerId, [...new Set(edges.map((e) => e.child))]);
  const live = children.filter((c) => isCompactionSummary(c) && isLiveAt(c, now));
  const members = new Map(
    (await deps.store.getByIds(ownerId, [...new Set(live.flatMap((s) => s.derivedFrom))]))
      .filter((m) => isLiveAt(m, now))
      .map((m) => [m.id, m]),
  );
  const summaries = new Map(
    live.map((s) => [
      s.id,
      { summary: s, members: s.derivedFrom.flatMap((id) => members.get(id) ?? []) },
    ]),
  );
  const byMember = new Map<string, string[]>();
  for (const e of edges)
    if (summaries.has(e.child))
      byMember.set(e.source, [...(byMember.get(e.source) ?? []), e.child]);
  return { summaries, byMember };
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
  // The newest live source memories (summaries and reflections are not
  // compacted again), oldest first. Members of existing summaries take part:
  // a cluster that grew is summarised anew (superseding the old summary); an
  // unchanged one has the same id and is left as it is.
  const candidates = (
    await deps.store.recentSources(ownerId, { now, limit: cfg.scanLimit })
  ).reverse();
  const run: CompactionRun = { scanned: candidates.length, clusters: 0, written: [] };
  if (candidates.length < cfg.minCluster) return run;

  const vectors = await vectorsOf(deps, ownerId, candidates);
  const held = await summariesHolding(deps, ownerId, candidates, now);
  const items: DerivedWrite[] = [];
  // Clusters form within a kind, and within what a summary of them would
  // vouch for: a third-party page's near-duplicates of the owner's words
  // would lower the owner's summary to third_party (an inference vouches
  // for no more than its weakest source), and stand in for them in recall.
  const byKind = new Map<string, Memory[]>();
  for (const m of candidates) {
    const group = `${m.kind}|${derivedAuthority(COMPACTION_CALLER, 'agent_inferred', [m])}`;
    byKind.set(group, [...(byKind.get(group) ?? []), m]);
  }
  const byId = new Map(candidates.map((m) => [m.id, m]));
  for (const members of byKind.values()) {
    // Near-duplicates say nearly the same words, not only the same thing:
    // similar vectors alone join different statements on one topic.
    const words = members.map((m) => contentWords(m.text));
    const overlaps = (i: number, j: number) => jaccard(words[i]!, words[j]!) >= cfg.wordOverlap;
    const clusters = await clustersOf(
      members.map((m) => ({ id: m.id, vector: vectors.get(m.id)! })),
      cfg.similarity,
      cfg.minCluster,
      overlaps,
    );
    for (const c of clusters) {
      const replaces = [...new Set(c.flatMap((id) => held.byMember.get(id) ?? []))].map((sid) =>
        held.summaries.get(sid)!,
      );
      items.push(
        summaryOf(
          ownerId,
          c.map((id) => byId.get(id)!),
          replaces,
          vectors,
          deps.policy.limits.derivedFrom,
        ),
      );
    }
  }
  run.clusters = items.length;
  const r = await writeDerived(deps, COMPACTION_CALLER, ownerId, items);
  run.written = [...r.written.map((m) => m.id), ...r.alreadyThere];
  return run;
}
