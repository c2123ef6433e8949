// neighbours / entityGraph: the graph reads an explorer draws and expands.
// Both answer graphology's serialisation (SerializedGraph), with node keys
// that mean the same in every graph read: a memory is its id (as in
// lineage), an entity `entity:<normalised name>`, so a UI can merge a
// neighbourhood into the graph it already shows. Entities are matched by
// graph-schema's normalizeEntityName, as the stores match them; a store
// keeps one entity per (name, type), and a graph node holds every type of a
// name (its `entityType` only when they agree), so "Alice" the person and
// "alice" the thing are one node to look at.
import { z } from 'zod';
import { normalizeEntityName } from '@keepgraph/graph-schema';
import { yieldToEventLoop } from '../domain/event-loop.ts';
import { isLiveAt } from '../domain/liveness.ts';
import type { EntityRef, Memory } from '../domain/record.ts';
import type { RelationEdge } from '../ports/memory-store.ts';
import { logServed, type Caller, type EngineDeps } from '../services/deps.ts';
import { OWNER_ID, arg, optionalArg, type ParsedArgs } from './define.ts';
import {
  memoryNodeAttributes,
  memoryOrNotFound,
  type MemoryIdArgs,
  type SerializedGraph,
} from './inspect.ts';

/** The key of an entity's node in every graph read. */
export function entityNodeKey(name: string): string {
  return `entity:${normalizeEntityName(name)}`;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A relation edge as graph reads draw it: subject to object, the memories asserting it. */
interface DrawnRelation {
  key: string;
  source: string;
  target: string;
  type: string;
  reasons: Set<string>;
  assertedBy: Set<string>;
}

/**
 * Builds a multigraph: nodes and edges by key, each added once. Entity
 * nodes gather the spellings and types they were given; relation edges
 * between the same node pair and of the same type merge their evidence.
 */
class GraphBuilder {
  private readonly nodes = new Map<string, Record<string, unknown>>();
  private readonly entityTypes = new Map<string, Set<string>>();
  private readonly edges = new Map<
    string,
    { source: string; target: string; attributes: Record<string, unknown> }
  >();
  private readonly relations = new Map<string, DrawnRelation>();

  memory(m: Memory): void {
    if (!this.nodes.has(m.id)) this.nodes.set(m.id, memoryNodeAttributes(m));
  }

  has(key: string): boolean {
    return this.nodes.has(key);
  }

  entity(ref: EntityRef): string {
    const key = entityNodeKey(ref.name);
    // One spelling of several names it for every store alike: the first in code-unit order.
    const seen = this.nodes.get(key);
    if (!seen || byCodeUnits(ref.name, String(seen.name)) < 0)
      this.nodes.set(key, { nodeType: 'entity', name: ref.name });
    const types = this.entityTypes.get(key) ?? new Set<string>();
    types.add(ref.type);
    this.entityTypes.set(key, types);
    return key;
  }

  edge(key: string, source: string, target: string, type: string): void {
    if (!this.edges.has(key)) this.edges.set(key, { source, target, attributes: { type } });
  }

  /**
   * A relation edge with its evidence; false (and nothing drawn) for one
   * that would join a node to itself ("alice" the person IS_A "Alice" the
   * thing), which the graph's options do not allow.
   */
  relation(
    r: Pick<RelationEdge, 'subject' | 'type' | 'object' | 'reasons' | 'assertedBy'>,
  ): boolean {
    const source = entityNodeKey(r.subject.name);
    const target = entityNodeKey(r.object.name);
    if (source === target) return false;
    this.entity(r.subject);
    this.entity(r.object);
    const key = `${source}-${r.type}->${target}`;
    const drawn = this.relations.get(key) ?? {
      key,
      source,
      target,
      type: r.type,
      reasons: new Set<string>(),
      assertedBy: new Set<string>(),
    };
    for (const x of r.reasons) drawn.reasons.add(x);
    for (const x of r.assertedBy) drawn.assertedBy.add(x);
    this.relations.set(key, drawn);
    return true;
  }

  /** The relation edges drawn so far. */
  relationList(): DrawnRelation[] {
    return [...this.relations.values()];
  }

  /**
   * The graph. With `only`, just those relation edges and the entities they
   * relate (an entity graph cut at its limit draws no entity left alone).
   */
  graph<M extends boolean>(
    attributes: Record<string, unknown>,
    multi: M,
    only?: readonly DrawnRelation[],
  ): SerializedGraph<M> {
    const relations = only ?? this.relationList();
    const related = new Set(relations.flatMap((r) => [r.source, r.target]));
    const drawn = [...this.nodes.entries()].filter(
      ([key, a]) => only === undefined || a.nodeType !== 'entity' || related.has(key),
    );
    const nodes = drawn.map(([key, attributes]) => {
      const types = this.entityTypes.get(key);
      return {
        key,
        attributes:
          types?.size === 1 ? { ...attributes, entityType: [...types][0]! } : { ...attributes },
      };
    });
    const edges = [
      ...[...this.edges.entries()].map(([key, e]) => ({ key, ...e })),
      ...relations.map((r) => ({
        key: r.key,
        source: r.source,
        target: r.target,
        attributes: {
          type: r.type,
          reasons: [...r.reasons].sort(),
          assertedBy: [...r.assertedBy].sort(),
        },
      })),
    ];
    return {
      attributes,
      options: { type: 'directed', multi, allowSelfLoops: false },
      nodes,
      edges,
    };
  }
}

/**
 * One memory and what touches it, for a graph to expand by a click: its
 * direct sources and the memories derived directly from it (DERIVED_FROM,
 * derived to source), the version it replaced and the one that replaced it
 * (SUPERSEDES, newer to older), and the entity relations it asserts with an
 * ASSERTS edge from it to each entity they relate. A relation edge carries
 * the evidence the store holds for it: every memory asserting it, whether
 * or not still live (a superseded assertion is provenance too). Memories
 * come as stored, like `get` and `lineage`: a superseded or expired one is
 * shown with its `supersededBy` and `expiresAt`.
 */
export async function neighbours(
  deps: EngineDeps,
  { ownerId, id }: ParsedArgs<typeof MemoryIdArgs>,
  caller: Caller,
): Promise<SerializedGraph<true>> {
  const root = await memoryOrNotFound(deps, ownerId, id);
  const [derived, relations] = await Promise.all([
    deps.store.derivedFrom(ownerId, [id]),
    deps.store.relations(ownerId, [id]),
  ]);
  const children = derived.filter((e) => e.source === id).map((e) => e.child);
  const versions = [root.supersedes, root.supersededBy].filter((v): v is string => v !== null);
  // At most the policy's limits.graphNodes memories, the versions first,
  // then the sources, then what was derived from it: a memory a thousand
  // others grew out of answers a bounded neighbourhood that says it is cut.
  const wanted = [...new Set([...versions, ...root.derivedFrom, ...children])].filter(
    (x) => x !== id,
  );
  const room = Math.max(0, deps.policy.limits.graphNodes - 1);
  const around = await deps.store.getByIds(ownerId, wanted.slice(0, room));
  const g = new GraphBuilder();
  g.memory(root);
  for (const m of around) g.memory(m);
  // The same edge keys as lineage's, so the two graphs merge edge for edge.
  for (const s of root.derivedFrom) if (g.has(s)) g.edge(`${id}->${s}`, id, s, 'DERIVED_FROM');
  for (const c of children) if (g.has(c)) g.edge(`${c}->${id}`, c, id, 'DERIVED_FROM');
  if (root.supersedes !== null && g.has(root.supersedes))
    g.edge(`${id}=>${root.supersedes}`, id, root.supersedes, 'SUPERSEDES');
  if (root.supersededBy !== null && g.has(root.supersededBy))
    g.edge(`${root.supersededBy}=>${id}`, root.supersededBy, id, 'SUPERSEDES');
  for (const r of relations) {
    g.relation(r);
    for (const e of [r.subject, r.object]) {
      const key = g.entity(e);
      g.edge(`${id}-ASSERTS->${key}`, id, key, 'ASSERTS');
    }
  }
  await logServed(deps, caller, ownerId, [id, ...around.map((m) => m.id)]);
  return g.graph({ root: id, ownerId, truncated: wanted.length > room }, true);
}

export const EntityGraphOptionsSchema = z.strictObject({
  /** At most this many relation edges (the best attested first). */
  limit: z.number().int().min(1).max(5000).default(500),
});
export type EntityGraphOptions = z.input<typeof EntityGraphOptionsSchema>;

export const EntityGraphArgs = [
  arg('ownerId', OWNER_ID),
  optionalArg('options', EntityGraphOptionsSchema.prefault({})),
] as const;

/** Asserting memories read per store call. */
const READ_CHUNK = 1000;

function sameEntity(a: EntityRef, b: EntityRef): boolean {
  return (
    normalizeEntityName(a.name) === normalizeEntityName(b.name) &&
    (a.type || 'thing') === (b.type || 'thing')
  );
}

/**
 * The owner's entity graph: entities and the relations between them, as
 * live memories assert them now. A relation the store still holds only
 * because an expired or superseded memory asserted it is left out (it
 * would be gone once the sweeper runs, invariant 6); an edge's reasons and
 * asserting memories are its live ones. At most `limit` relation edges,
 * those asserted by the most memories first; `truncated` says whether any
 * were left out. The entities are those the edges relate.
 */
export async function entityGraph(
  deps: EngineDeps,
  { ownerId, options }: ParsedArgs<typeof EntityGraphArgs>,
  caller: Caller,
): Promise<SerializedGraph<true>> {
  const now = deps.clock.now().toISOString();
  const relations = await deps.store.relations(ownerId);
  const asserting = [...new Set(relations.flatMap((r) => r.assertedBy))];
  const live = new Map<string, Memory>();
  for (let i = 0; i < asserting.length; i += READ_CHUNK) {
    for (const m of await deps.store.getByIds(ownerId, asserting.slice(i, i + READ_CHUNK)))
      if (isLiveAt(m, now)) live.set(m.id, m);
    // An owner of many assertions is read in chunks: other requests get a
    // turn between them (invariant 13).
    await yieldToEventLoop();
  }

  const g = new GraphBuilder();
  for (const r of relations) {
    const by = r.assertedBy.filter((x) => live.has(x));
    if (by.length === 0) continue;
    // The reasons of the live assertions only: each memory keeps its own.
    const reasons = by.flatMap((x) =>
      live
        .get(x)!
        .relations.filter(
          (mine) =>
            mine.type === r.type &&
            sameEntity(mine.subject, r.subject) &&
            sameEntity(mine.object, r.object),
        )
        .flatMap((mine) => (mine.reason === undefined ? [] : [mine.reason])),
    );
    g.relation({ ...r, assertedBy: by, reasons });
  }
  const ranked = g
    .relationList()
    .sort((a, b) => b.assertedBy.size - a.assertedBy.size || byCodeUnits(a.key, b.key));
  const kept = ranked.slice(0, options.limit);
  // The edges carry what their memories say (reasons): a read of them.
  await logServed(
    deps,
    caller,
    ownerId,
    kept.flatMap((r) => [...r.assertedBy]),
  );
  return g.graph({ ownerId, truncated: ranked.length > kept.length }, true, kept);
}
