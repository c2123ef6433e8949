// get / get-by-key / lineage: reading one memory and where it came from
// (why, in recall.ts, draws the same lineages). Each read served is logged.
import { z } from 'zod';
import { KeepGraphError } from '../domain/errors.ts';
import { copyMemory, identifierSchema, type Memory } from '../domain/record.ts';
import { yieldToEventLoop } from '../domain/event-loop.ts';
import { isLiveAt } from '../domain/liveness.ts';
import { IdSchema, logServed, type Caller, type EngineDeps } from '../services/deps.ts';
import { OWNER_ID, arg, type ParsedArgs } from './define.ts';

export const MemoryIdArgs = [arg('ownerId', OWNER_ID), arg('id', IdSchema)] as const;

export async function getMemory(
  deps: EngineDeps,
  { ownerId, id }: ParsedArgs<typeof MemoryIdArgs>,
  caller: Caller,
): Promise<Memory> {
  const m = await memoryOrNotFound(deps, ownerId, id);
  await logServed(deps, caller, ownerId, [m.id]);
  return copyMemory(m);
}

/** The owner's memory, or `not_found` (also for another owner's id: owners never meet). */
export async function memoryOrNotFound(
  deps: EngineDeps,
  ownerId: string,
  id: string,
): Promise<Memory> {
  const m = await deps.store.getById(ownerId, id);
  if (!m) throw new KeepGraphError('not_found', `no memory ${id} for this owner`);
  return m;
}

/** The current value under (owner, key), or null; never another owner's. */
export const KeyArgs = [arg('ownerId', OWNER_ID), arg('key', identifierSchema('key'))] as const;

export async function getByKey(
  deps: EngineDeps,
  { ownerId, key }: ParsedArgs<typeof KeyArgs>,
  caller: Caller,
): Promise<{ current: Memory | null; conflicts: Memory[] }> {
  const at = deps.clock.now().toISOString();
  // Live as recall means it: a version whose superseder was deleted stays ended.
  const live = (await deps.store.getByKey(ownerId, key)).filter((m) => isLiveAt(m, at));
  const current = live.find((m) => !m.conflict) ?? null;
  await logServed(
    deps,
    caller,
    ownerId,
    live.map((m) => m.id),
  );
  return {
    current: current && copyMemory(current),
    conflicts: copyMemory(live.filter((m) => m.conflict)),
  };
}

/**
 * graphology's serialisation format, as Graph.from() loads it, with the
 * schemas of its graph, node and edge attributes: `multi` when a pair of
 * nodes may hold several edges (an entity graph's relations).
 */
export function graphSchema<
  M extends boolean,
  A extends z.ZodType,
  N extends z.ZodType,
  E extends z.ZodType,
>(multi: M, attributes: A, node: N, edge: E) {
  return z
    .object({
      attributes,
      options: z.object({
        type: z.literal('directed'),
        multi: z.literal(multi),
        allowSelfLoops: z.literal(false),
      }),
      nodes: z.array(z.object({ key: z.string(), attributes: node })),
      edges: z.array(
        z.object({ key: z.string(), source: z.string(), target: z.string(), attributes: edge }),
      ),
    })
    .describe("graphology's serialisation format: load it with Graph.from()");
}

const attributes = z.record(z.string(), z.unknown());

/** A lineage: memories and their DERIVED_FROM and SUPERSEDES edges. */
export const SerializedGraphSchema = graphSchema(false, attributes, attributes, attributes);

/**
 * graphology's serialisation format, so a UI can `Graph.from()` it. `Multi`:
 * whether two nodes may be joined by several edges (a lineage never; an
 * entity graph where one pair holds several relations, yes). The default is
 * `z.output<typeof SerializedGraphSchema>`.
 */
export type SerializedGraph<Multi extends boolean = false> = z.output<
  ReturnType<typeof graphSchema<Multi, typeof attributes, typeof attributes, typeof attributes>>
>;

/**
 * A derived memory's sources' origins a graph node carries at most. The
 * union of every origin below a summary grows with everything it was
 * derived from, transitively (5,000 of them made each node of a lineage
 * hundreds of kilobytes); the graph holds the sources themselves, each with
 * its origin, and `get` returns the memory whole.
 */
export const NODE_SOURCE_ORIGINS = 20;

/** A memory as a graph node's attributes, in every graph read alike (lineage, neighbours). */
export function memoryNodeAttributes(m: Memory): Record<string, unknown> {
  return {
    nodeType: 'memory',
    kind: m.kind,
    text: m.text,
    authority: m.authority,
    origin: structuredClone(m.origin),
    // A derived memory's sources' origins: the page a summary was read from.
    sourceOrigins: structuredClone(m.sourceOrigins.slice(0, NODE_SOURCE_ORIGINS)),
    sourceOriginCount: m.sourceOrigins.length,
    createdAt: m.createdAt,
    expiresAt: m.expiresAt,
    contentHash: m.contentHash,
    supersededBy: m.supersededBy,
    conflict: m.conflict,
  };
}

/**
 * The derivation DAG from a memory down to its episodes, with their origins
 * and the older versions each replaced: at most the policy's
 * limits.graphNodes memories, nearest first; `attributes.truncated` says
 * whether any were left out (a deeper node's own lineage shows the rest).
 */
export async function lineage(
  deps: EngineDeps,
  input: ParsedArgs<typeof MemoryIdArgs>,
  caller: Caller,
): Promise<SerializedGraph> {
  const graph = await lineageGraph(deps, input, { left: deps.policy.limits.graphNodes });
  await logServed(
    deps,
    caller,
    input.ownerId,
    graph.nodes.map((n) => n.key),
  );
  return graph;
}

/** Memories a lineage reads from the store at once. */
const LINEAGE_READ = 50;

/** How many more memories a graph answer may hold (shared by a why's lineages). */
interface NodeBudget {
  left: number;
}

export async function lineageGraph(
  deps: EngineDeps,
  { ownerId, id }: ParsedArgs<typeof MemoryIdArgs>,
  budget: NodeBudget,
): Promise<SerializedGraph> {
  const root = await memoryOrNotFound(deps, ownerId, id);
  const graph: SerializedGraph = {
    attributes: { root: id, ownerId, truncated: false },
    options: { type: 'directed', multi: false, allowSelfLoops: false },
    nodes: [],
    edges: [],
  };
  const seen = new Set<string>();
  let frontier: Memory[] = [root];
  let truncated = false;
  // Breadth first, each level read only as far as the budget goes: a wide
  // derivation costs the budget, never the whole DAG (invariant 13).
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const m of frontier) {
      if (seen.has(m.id)) continue;
      if (budget.left <= 0) {
        truncated = true;
        break;
      }
      budget.left -= 1;
      seen.add(m.id);
      graph.nodes.push({ key: m.id, attributes: memoryNodeAttributes(m) });
      // The older version this one replaced (a correction, a key's new value).
      if (m.supersedes !== null) {
        graph.edges.push({
          key: `${m.id}=>${m.supersedes}`,
          source: m.id,
          target: m.supersedes,
          attributes: { type: 'SUPERSEDES' },
        });
        next.push(m.supersedes);
      }
      for (const s of m.derivedFrom) {
        graph.edges.push({
          key: `${m.id}->${s}`,
          source: m.id,
          target: s,
          attributes: { type: 'DERIVED_FROM' },
        });
        next.push(s);
      }
    }
    const unseen = [...new Set(next)].filter((x) => !seen.has(x));
    if (unseen.length > budget.left) truncated = true;
    const wanted = unseen.slice(0, Math.max(0, budget.left));
    frontier = [];
    // Read a slice at a time, with a turn of the event loop between: a few
    // parallel lineages of hundreds of memories each would otherwise hold
    // every other request until all were read and built.
    for (let i = 0; i < wanted.length; i += LINEAGE_READ) {
      frontier.push(...(await deps.store.getByIds(ownerId, wanted.slice(i, i + LINEAGE_READ))));
      await yieldToEventLoop();
    }
  }
  // Edges to sources that no longer exist, or past the cut, would dangle;
  // keep the graph loadable.
  graph.edges = graph.edges.filter((e) => seen.has(e.target));
  graph.attributes.truncated = truncated;
  return graph;
}
