// The three candidate searches of recall: vector (cosine), full text (BM25)
// and entity names. Each is scoped to one owner and returns live memories
// only: not expired, not superseded, already valid (invariant 6).
import { entityPlanFor, toMs } from '@keepgraph/core/ports';
import type { EntityPlan, ScoredId, SearchOptions } from '@keepgraph/core/ports';
import { NEO4J_INDEXES, normalizeEntityName } from '@keepgraph/graph-schema';
import { toLuceneQuery } from './fulltext-query.ts';
import { scorePool } from './owner-bm25.ts';
import { cypher } from './queries.ts';
import type { StoreSizes } from './recent-sizes.ts';
import { ownerKey } from './record-mapping.ts';
import type { StoreContext } from './store-context.ts';
import { int, num, readRows } from './transactions.ts';

/** Most candidates asked of an index in one query before falling back. */
export const MAX_INDEX_K = 10_000;

function checkOptions(opts: SearchOptions): { limit: number; nowMs: number } {
  return { limit: opts.limit, nowMs: toMs(opts.now, 'now') };
}

/** A hit as the queries return it: rid is the owner's insertion order. */
interface Hit {
  id: string;
  score: unknown;
  rid: unknown;
}

/** Best first; ties newest written first (by rid), as the SQLite store orders them. */
function ranked(hits: readonly Hit[], limit: number): ScoredId[] {
  return hits
    .map((h) => ({ id: h.id, score: num(h.score), rid: num(h.rid ?? 0) }))
    .sort((a, b) => b.score - a.score || b.rid - a.rid)
    .slice(0, limit)
    .map(({ id, score }) => ({ id, score }));
}

interface IndexPage {
  fetched: unknown;
  live: Hit[];
}

/** search-text-pool's answer: the hits, with text when they are `whole`. */
interface PoolPage {
  asked: unknown;
  /** Memory nodes in the store (the owner's count is `owner`). */
  total: unknown;
  whole: boolean;
  owner: unknown;
  hits: (Hit & { live: boolean; text: string | null })[];
}

/**
 * An owner of at most this many memories has every full-text match of a
 * query fetched, and ranked with its own statistics (owner-bm25.ts); a
 * larger owner too when its matches fit the usual page. Otherwise the
 * order is Lucene's, whose statistics are the whole index's.
 */
export const FULL_TEXT_POOL = 1000;

/** Which vector search path serves an owner of this size. */
export type VectorPath = 'exact' | 'index';

/** Exact when the owner is small (full recall, cost grows with the owner), index otherwise. */
export function chooseVectorPath(ctx: StoreContext, size: number): VectorPath {
  return size < ctx.exactSearchThreshold ? 'exact' : 'index';
}

/** Exact cosine over the owner's live memories. */
export async function searchVectorExact(
  ctx: StoreContext,
  ownerId: string,
  vector: number[],
  limit: number,
  nowMs: number,
): Promise<ScoredId[]> {
  const found = await readRows<Hit>(ctx, cypher('search-vector-exact'), {
    ownerId,
    vector,
    nowMs,
    limit: int(limit),
  });
  return ranked(found, limit);
}

/**
 * The global ANN index, oversampled: k starts at the owner's expected share
 * of hits (limit x total/owner x 2, at least 2 x limit: for an owner that is
 * most of the store, 2x keeps 0.99 of the exact top 50 at 100k, measured in
 * bench/README, and costs the index a third less than 4x) and grows 4x until `limit` live
 * hits of this owner survive, the index has no more, or k reaches the cap,
 * in which case the exact path answers, so recall is never silently lost.
 */
export async function searchVectorIndex(
  ctx: StoreContext,
  ownerId: string,
  vector: number[],
  limit: number,
  nowMs: number,
  sizes: StoreSizes,
): Promise<ScoredId[]> {
  const share = Math.max(1, sizes.total) / Math.max(1, sizes.owner);
  let k = Math.min(MAX_INDEX_K, Math.max(limit * 2, 32, Math.ceil(limit * share * 2)));
  for (;;) {
    const [page] = await readRows<IndexPage>(ctx, cypher('search-vector-index'), {
      index: NEO4J_INDEXES.memoryEmbedding,
      k: int(k),
      vector,
      ownerId,
      nowMs,
    });
    const live = page?.live ?? [];
    const exhausted = num(page?.fetched ?? 0) < k;
    if (live.length >= limit || exhausted) return ranked(live, limit);
    if (k >= MAX_INDEX_K) return searchVectorExact(ctx, ownerId, vector, limit, nowMs);
    k = Math.min(MAX_INDEX_K, k * 4);
  }
}

/** Cosine similarity of the owner's nearest live memories. */
export async function searchVector(
  ctx: StoreContext,
  ownerId: string,
  vector: Float32Array,
  opts: SearchOptions,
  path?: VectorPath,
): Promise<ScoredId[]> {
  const { limit, nowMs } = checkOptions(opts);
  if (limit === 0) return [];
  const v = Array.from(vector);
  const sizes = ctx.recentSizes.fresh(ownerId) ?? (await storeSizes(ctx, ownerId));
  if (sizes.owner === 0) return [];
  const chosen = path ?? chooseVectorPath(ctx, sizes.owner);
  return chosen === 'exact'
    ? searchVectorExact(ctx, ownerId, v, limit, nowMs)
    : searchVectorIndex(ctx, ownerId, v, limit, nowMs, sizes);
}

/**
 * Both counts in one round trip (they were two): the owner's counter, and
 * the count of all Memory nodes, which Neo4j answers from its count store.
 */
async function storeSizes(ctx: StoreContext, ownerId: string): Promise<StoreSizes> {
  const [row] = await readRows<{ owner: unknown; total: unknown }>(
    ctx,
    `CALL () { MATCH (m:Memory) RETURN count(m) AS total }
     OPTIONAL MATCH (o:Owner {id: $ownerId})
     RETURN o.memoryCount AS owner, total`,
    { ownerId },
  );
  const sizes = { owner: num(row?.owner ?? 0), total: num(row?.total ?? 0) };
  ctx.recentSizes.note(ownerId, sizes);
  return sizes;
}

/** BM25 hits for the words of `query`; an empty or punctuation-only query finds nothing. */
export async function searchText(
  ctx: StoreContext,
  ownerId: string,
  query: string,
  opts: SearchOptions,
): Promise<ScoredId[]> {
  const { limit, nowMs } = checkOptions(opts);
  const lucene = toLuceneQuery(ownerKey(ownerId), query);
  if (lucene === null || limit === 0) return [];
  const k = Math.min(MAX_INDEX_K, Math.max(limit * 4, 32));
  const [page] = await readRows<PoolPage>(ctx, cypher('search-text-pool'), {
    index: NEO4J_INDEXES.memoryText,
    query: lucene,
    pool: int(FULL_TEXT_POOL),
    k: int(k),
    ownerId,
    nowMs,
  });
  if (!page) return []; // no Owner node: the owner has no memories
  ctx.recentSizes.note(ownerId, { owner: num(page.owner), total: num(page.total) });
  if (page.whole) {
    // Every match is here: rank them with the owner's own statistics.
    const pool = page.hits.map((h) => ({ text: h.text ?? '', row: h }));
    const scored = scorePool(query, pool, num(page.owner));
    return ranked(
      scored.filter((s) => s.row.live).map((s) => ({ ...s.row, score: s.score })),
      limit,
    );
  }
  const live = page.hits.filter((h) => h.live);
  if (live.length >= limit) return ranked(live, limit);
  return luceneRanked(
    ctx,
    lucene,
    ownerId,
    nowMs,
    limit,
    Math.min(MAX_INDEX_K, num(page.asked) * 4),
  );
}

/**
 * Lucene's own order, for an owner whose query matches more than one page:
 * expired and superseded hits are dropped after the index answers, so
 * oversample and widen while the index has more.
 */
async function luceneRanked(
  ctx: StoreContext,
  lucene: string,
  ownerId: string,
  nowMs: number,
  limit: number,
  from: number,
): Promise<ScoredId[]> {
  let k = from;
  for (;;) {
    const [page] = await readRows<IndexPage>(ctx, cypher('search-text'), {
      index: NEO4J_INDEXES.memoryText,
      query: lucene,
      k: int(k),
      ownerId,
      nowMs,
    });
    const live = page?.live ?? [];
    const exhausted = num(page?.fetched ?? 0) < k;
    if (live.length >= limit || exhausted || k >= MAX_INDEX_K) return ranked(live, limit);
    k = Math.min(MAX_INDEX_K, k * 4);
  }
}

/**
 * The plan for these names (entityPlanFor: 'hits' runs search-entities,
 * 'walk' search-entities-newest), from each entity's degree and the owner's
 * memory count; also the ids of the memories that assert the entities'
 * relations, which the walk needs.
 */
async function chooseEntityPlan(
  ctx: StoreContext,
  ownerId: string,
  names: string[],
  limit: number,
): Promise<{ plan: EntityPlan; asserted: string[] }> {
  const [row] = await readRows<{ hits: unknown; owner: unknown; asserted: string[] }>(
    ctx,
    `MATCH (e:Entity) WHERE e.ownerId = $ownerId AND e.normName IN $names
     OPTIONAL MATCH (e)-[r:RELATION]-(:Entity)
     WITH e, reduce(ids = [], a IN collect(r.assertedBy) | ids + a) AS asserted
     WITH sum(COUNT { (e)<-[:ABOUT]-() }) AS hits, collect(asserted) AS lists
     OPTIONAL MATCH (o:Owner {id: $ownerId})
     RETURN hits, o.memoryCount AS owner, reduce(ids = [], a IN lists | ids + a) AS asserted`,
    { ownerId, names },
  );
  const hits = num(row?.hits ?? 0);
  const owner = num(row?.owner ?? 0);
  return {
    plan: entityPlanFor(hits, owner, limit),
    asserted: row?.asserted ?? [],
  };
}

/** Live memories about (or relating) any of the named entities; score 1 each, newest first. */
export async function searchEntities(
  ctx: StoreContext,
  ownerId: string,
  names: readonly string[],
  opts: SearchOptions,
): Promise<ScoredId[]> {
  return (await searchEntitiesWithPlan(ctx, ownerId, names, opts)).hits;
}

/** searchEntities, by `plan` when given (else the chosen one); says which plan ran. */
export async function searchEntitiesWithPlan(
  ctx: StoreContext,
  ownerId: string,
  names: readonly string[],
  opts: SearchOptions,
  plan?: EntityPlan,
): Promise<{ hits: ScoredId[]; chosen: EntityPlan }> {
  const { limit, nowMs } = checkOptions(opts);
  const normalized = [...new Set(names.map(normalizeEntityName).filter((n) => n !== ''))];
  if (normalized.length === 0 || limit === 0) return { hits: [], chosen: plan ?? 'hits' };
  const choice = await chooseEntityPlan(ctx, ownerId, normalized, limit);
  const chosen = plan ?? choice.plan;
  const found = await readRows<{ id: string; score: unknown }>(
    ctx,
    cypher(chosen === 'walk' ? 'search-entities-newest' : 'search-entities'),
    chosen === 'walk'
      ? { ownerId, names: normalized, asserted: choice.asserted, nowMs, limit: int(limit) }
      : { ownerId, names: normalized, nowMs, limit: int(limit) },
  );
  return { hits: found.map((r) => ({ id: r.id, score: num(r.score) })), chosen };
}
