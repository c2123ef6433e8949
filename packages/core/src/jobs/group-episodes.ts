// Reflection's grouping: episodes linked by embedding similarity form a
// graph (graphology); Louvain communities of it are the groups handed to
// the extractor together, so related episodes are read side by side.
import { UndirectedGraph } from 'graphology';
import louvainImport from 'graphology-communities-louvain';
import { connectedComponents } from 'graphology-components';
import { seededRandom } from '../domain/seeded-random.ts';

// A CommonJS module whose typings declare an ES default export: under
// NodeNext the type is the module object, at run time it is the function.
const louvain = louvainImport as unknown as typeof louvainImport.default;

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Rows of the all-pairs comparison between yields to the event loop. */
const ROWS_PER_SLICE = 32;

/**
 * A similarity graph: one node per id, an edge (weight = cosine) where
 * cosine >= threshold. All pairs (≈500k for 1,000 items) are compared in
 * slices, yielding in between, so an API served by the same process (the
 * embedded mode) keeps answering meanwhile.
 */
export async function similarityGraph(
  items: readonly { id: string; vector: Float32Array }[],
  threshold: number,
  /** A further test a pair above the threshold must pass to be linked (indices into items). */
  accept?: (i: number, j: number) => boolean,
): Promise<UndirectedGraph> {
  const g = new UndirectedGraph();
  for (const it of items) g.addNode(it.id);
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % ROWS_PER_SLICE === 0) await new Promise((ok) => setImmediate(ok));
    for (let j = i + 1; j < items.length; j++) {
      const w = cosine(items[i]!.vector, items[j]!.vector);
      if (w >= threshold && (!accept || accept(i, j)))
        g.addEdge(items[i]!.id, items[j]!.id, { weight: w });
    }
  }
  return g;
}

/**
 * Groups of ids, each in input order, groups ordered by their first member.
 * Singletons are groups too: an episode unlike any other is still read.
 */
export async function groupBySimilarity(
  items: readonly { id: string; vector: Float32Array }[],
  threshold: number,
  maxGroupSize = 20,
): Promise<string[][]> {
  const g = await similarityGraph(items, threshold);
  const community: Record<string, number> =
    g.size === 0
      ? Object.fromEntries(items.map((it, i) => [it.id, i]))
      : louvain(g, { rng: seededRandom(0x9e3779b9), getEdgeWeight: 'weight', randomWalk: false });
  const groups = new Map<number, string[]>();
  for (const it of items) {
    const c = community[it.id]!;
    groups.set(c, [...(groups.get(c) ?? []), it.id]);
  }
  const out: string[][] = [];
  for (const members of groups.values()) {
    for (let i = 0; i < members.length; i += maxGroupSize)
      out.push(members.slice(i, i + maxGroupSize));
  }
  const order = new Map(items.map((it, i) => [it.id, i]));
  return out.sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
}

/** Connected components of the similarity graph with at least `minSize` members (near-duplicate clusters). */
export async function clustersOf(
  items: readonly { id: string; vector: Float32Array }[],
  threshold: number,
  minSize: number,
  accept?: (i: number, j: number) => boolean,
): Promise<string[][]> {
  const order = new Map(items.map((it, i) => [it.id, i]));
  return connectedComponents(await similarityGraph(items, threshold, accept))
    .filter((c) => c.length >= minSize)
    .map((c) => c.sort((a, b) => order.get(a)! - order.get(b)!))
    .sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
}
