// recall and why (a recall with its results' lineages): the read path.
// Owner-scoped candidates from vector, full-text and entity retrievers plus
// derived neighbours; the store filters expired and superseded memories at
// query time; core fuses and rescores; every read served is logged.
import { z } from 'zod';
import { RECALL_RECIPES, type RecallConfig } from '../domain/recall-config.ts';
import {
  AUTHORITIES,
  MemorySchema,
  StoredOriginSchema,
  copyMemory,
  type Memory,
} from '../domain/record.ts';
import { entityCandidates, fuse, rankCandidates, type FusedRetriever } from '../domain/rank.ts';
import { ScoreBreakdownSchema } from '../domain/scoring.ts';
import type { ScoredId } from '../ports/memory-store.ts';
import { standInForDuplicates } from '../domain/derived-keys.ts';
import { isLiveAt } from '../domain/liveness.ts';
import { lendScoreToReplies } from '../domain/session-replies.ts';
import { queryTimeWindows } from '../domain/query-time.ts';
import { SerializedGraphSchema, lineageGraph, type SerializedGraph } from './inspect.ts';
import { PromptTextSchema, renderMemoriesForPrompt } from '../domain/render-context.ts';
import { logServed, type Caller, type EngineDeps } from '../services/deps.ts';
import { matchesFilter } from './list.ts';
import type { ParsedArgs } from './define.ts';
import type { RecallArgs, RecallOptionsSchema } from './recall-args.ts';

export const RecallHitSchema = z.object({
  memory: MemorySchema,
  origin: StoredOriginSchema,
  sourceOrigins: z.array(StoredOriginSchema),
  authority: z.enum(AUTHORITIES),
  derivedFrom: z.array(z.string()),
  /**
   * The derived memories (reflected claims, rules, summaries) through which
   * this one was reached, best first; empty when the query found it itself.
   */
  via: z.array(z.string()),
  score: z.number(),
  breakdown: ScoreBreakdownSchema,
});
export type RecallHit = z.output<typeof RecallHitSchema>;

export const RecallResultSchema = z.object({
  requestId: z.string(),
  ownerId: z.string(),
  query: z.string(),
  results: z.array(RecallHitSchema),
});
export type RecallResult = z.output<typeof RecallResultSchema>;

export function resolveRecallConfig(opts: z.output<typeof RecallOptionsSchema>): RecallConfig {
  const base = RECALL_RECIPES[opts.recipe];
  return {
    ...base,
    topK: opts.topK ?? base.topK,
    minScore: opts.minScore ?? base.minScore,
  };
}

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

export const WhyResultSchema = RecallResultSchema.extend({
  /** By memory id: the lineage of every result and of every derived memory a result was reached through (`via`). */
  lineage: z.record(z.string(), SerializedGraphSchema),
  /** The results rendered for a prompt as quoted data (invariant 9). */
  prompt: PromptTextSchema,
});
export type WhyResult = z.output<typeof WhyResultSchema>;

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
