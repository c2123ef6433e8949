// recall / why / lineage / get: the read path. Owner-scoped candidates from
// vector, full-text and entity retrievers plus derived neighbours; the store
// filters expired and superseded memories at query time; core fuses and
// rescores; every read served is logged.
import { z } from 'zod';
import { KeepGraphError } from '../errors.ts';
import {
  RECALL_RECIPES,
  RECALL_RECIPE_NAMES,
  type RecallConfig,
  type RecallRecipe,
} from '../recall-config.ts';
import {
  MEMORY_KINDS,
  copyMemory,
  identifierSchema,
  type Authority,
  type Memory,
  type Origin,
} from '../record.ts';
import {
  entityCandidates,
  fuse,
  rankCandidates,
  type FusedRetriever,
  type ScoreBreakdown,
} from '../rank.ts';
import type { ScoredId } from '../ports/memory-store.ts';
import { standInForDuplicates } from '../derived-keys.ts';
import { yieldToEventLoop } from '../event-loop.ts';
import { isLiveAt } from '../liveness.ts';
import { lendScoreToReplies } from '../session-replies.ts';
import { queryTimeWindows } from '../query-time.ts';
import { renderMemoriesForPrompt } from '../render-context.ts';
import { IdSchema, logServed, type Caller, type EngineDeps } from '../services/deps.ts';
import { MemoryFilterSchema, matchesFilter } from './list.ts';
import { OWNER_ID, arg, optionalArg, uncheckedArg, type ParsedArgs } from './define.ts';

export const RecallOptionsSchema = z.strictObject({
  recipe: z.enum(RECALL_RECIPE_NAMES as [RecallRecipe, ...RecallRecipe[]]).default('default'),
  topK: z.number().int().min(1).max(100).optional(),
  minScore: z.number().min(0).max(1).optional(),
  kinds: z.array(z.enum(MEMORY_KINDS)).min(1).optional(),
  /** Evaluate validity at this instant instead of now (never in the future past expiry). */
  asOf: z.iso.datetime({ offset: true }).optional(),
  /**
   * When the question is asked (default: asOf, else now). Relative dates in
   * the query ("last week", "in June") and recency are read against it, as a
   * person reading a transcript reads "yesterday" against the day it was
   * said; unlike asOf it does not change which memories are live, so an
   * agent replaying a conversation can ask as of the conversation's time.
   */
  askedAt: z.iso.datetime({ offset: true }).optional(),
  sessionId: z.string().min(1).max(256).optional(),
  /**
   * listMemories' filters (tag, origin, time ranges, authority...): they
   * narrow the candidates the searches found, so a rare filter may answer
   * fewer than topK. Superseded versions are never recalled (invariant 6).
   */
  filter: MemoryFilterSchema.omit({ includeSuperseded: true }).optional(),
});
export type RecallOptions = z.input<typeof RecallOptionsSchema>;

const QuerySchema = z.string().trim().min(1, 'query must not be blank').max(4000);

export interface RecallHit {
  memory: Memory;
  origin: Origin;
  sourceOrigins: Origin[];
  authority: Authority;
  derivedFrom: string[];
  /**
   * The derived memories (reflected claims, rules, summaries) through which
   * this one was reached, best first; empty when the query found it itself.
   */
  via: string[];
  score: number;
  breakdown: ScoreBreakdown;
}

export interface RecallResult {
  requestId: string;
  ownerId: string;
  query: string;
  results: RecallHit[];
}

export function resolveRecallConfig(opts: z.output<typeof RecallOptionsSchema>): RecallConfig {
  const base = RECALL_RECIPES[opts.recipe];
  return {
    ...base,
    topK: opts.topK ?? base.topK,
    minScore: opts.minScore ?? base.minScore,
  };
}

export const RecallArgs = [
  arg('ownerId', OWNER_ID),
  arg('query', uncheckedArg(QuerySchema)),
  optionalArg('options', RecallOptionsSchema.prefault({})),
] as const;

export async function recall(
  deps: EngineDeps,
  input: ParsedArgs<typeof RecallArgs>,
  caller: Caller,
): Promise<RecallResult> {
  const r = await recallUnlogged(deps, input, caller);
  // A read that served nothing is not logged: it cannot have carried a
  // poisoned memory anywhere, and logging it would store whatever owner id a
  // caller asked about, one that the write gate refuses included.
  await logServed(
    deps,
    caller,
    r.ownerId,
    r.results.map((h) => h.memory.id),
    { requestId: r.requestId, sessionId: input.options.sessionId ?? caller.sessionId ?? null },
  );
  return r;
}

/** Recall without logging the read: `why` logs its results and their lineage as one read. */
async function recallUnlogged(
  deps: EngineDeps,
  { ownerId, query, options: opts }: ParsedArgs<typeof RecallArgs>,
  caller: Caller,
): Promise<RecallResult> {
  const config = resolveRecallConfig(opts);
  const clockNow = deps.clock.now();
  // asOf may look back, never past what has already expired by now.
  const now = opts.asOf && new Date(opts.asOf) < clockNow ? new Date(opts.asOf) : clockNow;
  const at = now.toISOString();
  const askedAt = opts.askedAt ? new Date(opts.askedAt) : now;
  const search = { limit: config.candidates, now: at };

  // Full text and entities need no vector: they are asked while the query is
  // embedded, so a store on another process (Neo4j) answers them meanwhile.
  const [vec, text, entity] = await Promise.all([
    deps.embedder
      .embed([query], 'query')
      .then(([vector]) => (vector ? deps.store.searchVector(ownerId, vector, search) : [])),
    deps.store.searchText(ownerId, query, search),
    config.weights.entity > 0
      ? deps.store.searchEntities(ownerId, entityCandidates(query), search)
      : Promise.resolve([]),
  ]);
  const lists: Partial<Record<FusedRetriever, ScoredId[]>> = { vector: vec, text, entity };

  // Derived neighbours: claims and summaries built on the best hits. The
  // edges of every candidate come in one round trip; the top seeds lend
  // their rank to what was derived from them. The candidates themselves are
  // read meanwhile, and so are the replies to the best of them when they
  // are question turns (derived memories are never question turns); only
  // derived neighbours that are not candidates take a round trip after.
  const seeds = fuse(lists, config);
  const seedIds = [...seeds.keys()];
  // Best fused first, sorted once for the replies asked about and the seeds that lend.
  const bestSeeds = [...seeds.entries()].sort((a, b) => b[1].fused - a[1].fused);
  const askAbout = bestSeeds.slice(0, config.topK * 2).map(([id]) => id);
  const [edges, seedRows, successors] = await Promise.all([
    deps.store.derivedFrom(ownerId, seedIds),
    deps.store.getByIds(ownerId, seedIds),
    config.replyWeight > 0 ? deps.store.nextInSession(ownerId, askAbout) : Promise.resolve([]),
  ]);
  // The store drops nothing itself: expired, superseded and not-yet-valid
  // ones go here (at asOf, and never what has expired by now).
  const isLive = (m: Memory): boolean =>
    m.expiresAt > clockNow.toISOString() &&
    isLiveAt(m, at) &&
    (!opts.kinds || opts.kinds.includes(m.kind)) &&
    (!opts.filter || matchesFilter(m, opts.filter, at));
  // Derived candidates are keys to their evidence: their sources come too,
  // fetched when the query did not find them itself. A source the query
  // did not find is picked by the order it is named in (derived-keys.ts), so
  // the first maxSourcesPerDerived of them are all a derived memory can use:
  // a summary of a thousand members costs three reads, not a thousand.
  const sourcesToFetch = (of: readonly Memory[], have: ReadonlySet<string>): string[] =>
    config.sourceLend > 0
      ? [
          ...new Set(
            of
              .filter(isLive)
              .flatMap((m) =>
                m.derivedFrom.filter((id) => !have.has(id)).slice(0, config.maxSourcesPerDerived),
              ),
          ),
        ]
      : [];
  // getByIds answers in the order asked: the rows are the candidates', then
  // their derived neighbours' in edge order, as one read of both would be.
  // The candidates' own sources are read beside the neighbours (a round trip
  // less); what the neighbours add to them is read after. Reading a source
  // early changes nothing: the sources used are chosen below as before.
  const children = [...new Set(edges.map((e) => e.child))].filter((id) => !seeds.has(id));
  const [childRows, early] = await Promise.all([
    children.length > 0 ? deps.store.getByIds(ownerId, children) : Promise.resolve([]),
    (async () => {
      const ids = sourcesToFetch(seedRows, new Set(seedRows.filter(isLive).map((m) => m.id)));
      return ids.length > 0 ? deps.store.getByIds(ownerId, ids) : [];
    })(),
  ]);
  const rows = childRows.length > 0 ? [...seedRows, ...childRows] : seedRows;
  if (config.weights.derived > 0) {
    const top = new Map(bestSeeds.slice(0, 10).map(([id, f]) => [id, f.fused]));
    // Ranked by the seed they hang off; several on one seed by content, so
    // the order never depends on the ids they were given.
    const order = [...top.keys()];
    const hash = new Map(rows.map((m) => [m.id, m.contentHash]));
    lists.derived = edges
      .filter((e) => top.has(e.source))
      .sort(
        (a, b) =>
          order.indexOf(a.source) - order.indexOf(b.source) ||
          (hash.get(a.child) ?? '').localeCompare(hash.get(b.child) ?? ''),
      )
      .map((e) => ({ id: e.child, score: top.get(e.source)! }));
  }
  const fused = fuse(lists, config);
  const live = new Map(rows.filter(isLive).map((m) => [m.id, m]));
  const missing = sourcesToFetch([...live.values()], new Set(live.keys()));
  if (missing.length > 0) {
    const read = new Map(early.map((m) => [m.id, m]));
    const rest = missing.filter((id) => !read.has(id));
    if (rest.length > 0)
      for (const m of await deps.store.getByIds(ownerId, rest)) read.set(m.id, m);
    for (const id of missing) {
      const m = read.get(id);
      if (m && isLive(m)) live.set(m.id, m);
    }
  }
  const { hidden, standingIn } = standInForDuplicates(fused, live);
  const replies = successors.filter((s) => isLive(s.memory) && !hidden.has(s.memory.id));
  lendScoreToReplies(fused, live, replies, config.replyWeight, config.replyMaxChars);
  for (const { memory } of replies) if (!live.has(memory.id)) live.set(memory.id, memory);
  const via = new Map<string, string[]>();
  const ranked = rankCandidates(
    fused,
    live,
    askedAt,
    config,
    {
      timeWindows: queryTimeWindows(query, askedAt),
      words: new Set(query.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []),
    },
    { via, standingIn },
  );

  const requestId = caller.requestId ?? deps.newId();
  return {
    requestId,
    ownerId,
    query,
    results: ranked.map((r) => {
      const memory = copyMemory(r.memory);
      return {
        memory,
        origin: structuredClone(memory.origin),
        sourceOrigins: structuredClone(memory.sourceOrigins),
        authority: memory.authority,
        derivedFrom: [...memory.derivedFrom],
        via: [...(via.get(memory.id) ?? [])],
        score: r.score,
        breakdown: r.breakdown,
      };
    }),
  };
}

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
 * graphology's serialisation format, so a UI can `Graph.from()` it. `Multi`:
 * whether two nodes may be joined by several edges (a lineage never; an
 * entity graph where one pair holds several relations, yes).
 */
export interface SerializedGraph<Multi extends boolean = false> {
  attributes: Record<string, unknown>;
  options: { type: 'directed'; multi: Multi; allowSelfLoops: false };
  nodes: { key: string; attributes: Record<string, unknown> }[];
  edges: { key: string; source: string; target: string; attributes: Record<string, unknown> }[];
}

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

async function lineageGraph(
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

export interface WhyResult extends RecallResult {
  /** By memory id: the lineage of every result and of every derived memory a result was reached through (`via`). */
  lineage: Record<string, SerializedGraph>;
  /** The results rendered for a prompt as quoted data (invariant 9). */
  prompt: string;
}

export async function why(
  deps: EngineDeps,
  input: ParsedArgs<typeof RecallArgs>,
  caller: Caller,
): Promise<WhyResult> {
  const r = await recallUnlogged(deps, input, caller);
  const lineageById: Record<string, SerializedGraph> = {};
  // Each result's lineage, and for a result reached through derived
  // memories, theirs too: the chain from the key the query found to it.
  const ids = [...new Set(r.results.flatMap((hit) => [hit.memory.id, ...hit.via]))];
  // One budget for all of them: a why is one answer.
  const budget = { left: deps.policy.limits.graphNodes };
  for (const id of ids)
    lineageById[id] = await lineageGraph(deps, { ownerId: r.ownerId, id }, budget);
  // One read: the results and every memory their lineage shows.
  await logServed(
    deps,
    caller,
    r.ownerId,
    [
      ...r.results.map((h) => h.memory.id),
      ...Object.values(lineageById).flatMap((g) => g.nodes.map((n) => n.key)),
    ],
    { requestId: r.requestId, sessionId: input.options.sessionId ?? caller.sessionId ?? null },
  );
  return { ...r, lineage: lineageById, prompt: renderMemoriesForPrompt(r.results) };
}
