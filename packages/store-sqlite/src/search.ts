// The three candidate searches of recall: vector (cosine), full text (BM25)
// and entity names. Each is scoped to one owner and returns live memories
// only: not expired, not superseded, already valid (invariant 6).
import { entityPlanFor, toMs } from '@keepgraph/core/ports';
import type { EntityPlan, ScoredId, SearchOptions } from '@keepgraph/core/ports';
import { normalizeEntityName } from '@keepgraph/graph-schema';
import type { StoreContext } from './store-context.ts';

export { FULL_TEXT_WINDOW, searchText } from './search-text.ts';

/** The widest k tried: a search stops widening past this many neighbours. */
const MAX_K = 4096;

function checkOptions(opts: SearchOptions): { limit: number; nowMs: number } {
  return { limit: opts.limit, nowMs: toMs(opts.now, 'now') };
}

/** Cosine similarity (1 - cosine distance) of the owner's nearest live memories. */
export function searchVector(
  ctx: StoreContext,
  ownerId: string,
  vector: Float32Array,
  opts: SearchOptions,
): ScoredId[] {
  const { limit, nowMs } = checkOptions(opts);
  if (limit === 0) return [];
  // Superseded memories are filtered after the KNN, so fetch more than
  // asked and widen until enough survive or k reaches MAX_K (or the owner's
  // index has returned every vector it holds).
  const knn = (k: number): { rows: { id: string; distance: number }[]; exhausted: boolean } =>
    indexedNearest(ctx, ownerId, vector, k, nowMs, limit) ?? {
      rows: ctx.st.file('search-vector').all({ ownerId, vector, k, nowMs, limit }) as {
        id: string;
        distance: number;
      }[],
      exhausted: false,
    };
  let k = Math.min(MAX_K, Math.max(limit * 4, 32));
  let found = knn(k);
  while (found.rows.length < limit && !found.exhausted && k < MAX_K) {
    k = Math.min(MAX_K, k * 4);
    found = knn(k);
  }
  return found.rows.map((r) => ({ id: r.id, score: 1 - r.distance }));
}

/**
 * The same answer as search-vector through the owner's in-memory index,
 * or null when the owner has none (below its size threshold). Ties keep
 * search-vector's order: the newer memory first. `exhausted`: the index
 * holds no vector beyond those returned, so a wider k finds nothing more.
 */
function indexedNearest(
  ctx: StoreContext,
  ownerId: string,
  vector: Float32Array,
  k: number,
  nowMs: number,
  limit: number,
): { rows: { id: string; distance: number }[]; exhausted: boolean } | null {
  const hits = ctx.vectors.search(ownerId, vector, k, nowMs);
  if (hits === null) return null;
  const live = new Map(
    (
      ctx.st
        .file('live-among')
        .all({ ownerId, ids: JSON.stringify(hits.map((h) => h.id)), nowMs }) as {
        id: string;
        rid: number;
      }[]
    ).map((r) => [r.id, r.rid]),
  );
  const rows = hits
    .filter((h) => live.has(h.id))
    .map((h) => ({ id: h.id, distance: 1 - h.score, rid: live.get(h.id)! }))
    .sort((a, b) => a.distance - b.distance || b.rid - a.rid)
    .slice(0, limit);
  return { rows, exhausted: hits.length < k };
}

/**
 * The plan for these names (entityPlanFor: 'hits' runs search-entities,
 * 'walk' search-entities-newest). The owner's size is its vector count
 * (owner_vectors, one key lookup, in the same statement as the count).
 */
function chooseEntityPlan(
  ctx: StoreContext,
  ownerId: string,
  names: string,
  limit: number,
): EntityPlan {
  const { hits, vectors } = ctx.st
    .sql(
      `SELECT (SELECT count(*) FROM memory_about WHERE entity_id IN (
                 SELECT id FROM entities
                  WHERE owner_id = @ownerId AND name_norm IN (SELECT value FROM json_each(@names))))
                AS hits,
              coalesce((SELECT vectors FROM owner_vectors WHERE owner_id = @ownerId), 0) AS vectors`,
    )
    .get({ ownerId, names }) as { hits: number; vectors: number };
  return entityPlanFor(hits, vectors, limit);
}

/** Live memories about (or relating) any of the named entities; score 1 each, newest first. */
export function searchEntities(
  ctx: StoreContext,
  ownerId: string,
  names: readonly string[],
  opts: SearchOptions,
): ScoredId[] {
  return searchEntitiesWithPlan(ctx, ownerId, names, opts).hits;
}

/** searchEntities, by `plan` when given (else the chosen one); says which plan ran. */
export function searchEntitiesWithPlan(
  ctx: StoreContext,
  ownerId: string,
  names: readonly string[],
  opts: SearchOptions,
  plan?: EntityPlan,
): { hits: ScoredId[]; chosen: EntityPlan } {
  const { limit, nowMs } = checkOptions(opts);
  const normalized = [...new Set(names.map(normalizeEntityName).filter((n) => n !== ''))];
  if (normalized.length === 0 || limit === 0) return { hits: [], chosen: plan ?? 'hits' };
  const namesJson = JSON.stringify(normalized);
  const chosen = plan ?? chooseEntityPlan(ctx, ownerId, namesJson, limit);
  const rows = ctx.st
    .file(chosen === 'walk' ? 'search-entities-newest' : 'search-entities')
    .all({ ownerId, names: namesJson, nowMs, limit }) as {
    id: string;
    score: number;
  }[];
  return { hits: rows.map((r) => ({ id: r.id, score: r.score })), chosen };
}
