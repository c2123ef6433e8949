// Owner-scoped lookups of memories: by id, by key, by source, listings and
// the orderings used by cap eviction and the expiry sweeper. Lookups by a
// list of ids name their index (USING INDEX SEEK): on a young database the
// index statistics lag, every index looks empty, and a plan cached then may
// start from all of the owner's memories instead (seen in the cascade,
// bench/README, thirteenth session).
import { toMs } from '@keepgraph/core/ports';
import type { Memory } from '@keepgraph/core';
import type {
  DerivedEdge,
  ExpiryCandidate,
  SessionPredecessor,
  SessionSuccessor,
} from '@keepgraph/core/ports';
import { MEMORY_PROJECTION, propsToMemory } from './record-mapping.ts';
import { cypher } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { int, num, readIds, readRows } from './transactions.ts';

type MemoryRow = { m: Record<string, unknown> };

export async function getById(
  ctx: StoreContext,
  ownerId: string,
  id: string,
): Promise<Memory | null> {
  const [row] = await readRows<MemoryRow>(
    ctx,
    `MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
     WHERE m.ownerId = $ownerId RETURN ${MEMORY_PROJECTION} AS m`,
    { ownerId, id },
  );
  return row ? propsToMemory(row.m) : null;
}

/** The owner's memories among `ids`, in the order asked; unknown ids are skipped. */
export async function getByIds(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): Promise<Memory[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const found = await readRows<MemoryRow>(
    ctx,
    `MATCH (m:Memory) USING INDEX SEEK m:Memory(id)
     WHERE m.id IN $ids AND m.ownerId = $ownerId RETURN ${MEMORY_PROJECTION} AS m`,
    { ownerId, ids: unique },
  );
  const byId = new Map(found.map((r) => [String(r.m.id), r.m]));
  const out: Memory[] = [];
  for (const id of unique) {
    const p = byId.get(id);
    if (p) out.push(propsToMemory(p));
  }
  return out;
}

/**
 * The episode written just after (`next`) or just before (`previous`), by
 * rid, in the same session, for each of `ids`, with the id asked about.
 */
async function neighbourInSession(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
  side: 'next' | 'previous',
): Promise<{ asked: string; memory: Memory }[]> {
  if (ids.length === 0) return [];
  const [cmp, order] = side === 'next' ? ['>', 'ASC'] : ['<', 'DESC'];
  const found = await readRows<{ asked: string } & MemoryRow>(
    ctx,
    `MATCH (p:Memory) USING INDEX SEEK p:Memory(id)
     WHERE p.id IN $ids AND p.ownerId = $ownerId AND p.sessionId IS NOT NULL
     CALL (p) {
       MATCH (m:Memory {ownerId: $ownerId, sessionId: p.sessionId})
       WHERE m.rid ${cmp} p.rid AND m.kind = 'episode'
       RETURN m ORDER BY m.rid ${order} LIMIT 1
     }
     RETURN p.id AS asked, ${MEMORY_PROJECTION} AS m`,
    { ownerId, ids: [...new Set(ids)] },
  );
  return found.map((r) => ({ asked: String(r.asked), memory: propsToMemory(r.m) }));
}

/** The episode written next (by rid) in the same session, for each of `ids`. */
export async function nextInSession(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): Promise<SessionSuccessor[]> {
  return (await neighbourInSession(ctx, ownerId, ids, 'next')).map((n) => ({
    after: n.asked,
    memory: n.memory,
  }));
}

/** The episode written just before (by rid) in the same session, for each of `ids`. */
export async function previousInSession(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): Promise<SessionPredecessor[]> {
  return (await neighbourInSession(ctx, ownerId, ids, 'previous')).map((n) => ({
    before: n.asked,
    memory: n.memory,
  }));
}

/** Every version under (owner, key), newest first (insertion order breaks ties), superseded ones included. */
export async function getByKey(ctx: StoreContext, ownerId: string, key: string): Promise<Memory[]> {
  const found = await readRows<MemoryRow>(
    ctx,
    `MATCH (m:Memory {ownerId: $ownerId, key: $key})
     RETURN ${MEMORY_PROJECTION} AS m ORDER BY m.createdMs DESC, m.rid DESC`,
    { ownerId, key },
  );
  return found.map((r) => propsToMemory(r.m));
}

/**
 * Memories whose own or inherited origins name the source uri or the tool.
 * Given both, a memory naming either matches.
 */
export async function findBySource(
  ctx: StoreContext,
  ownerId: string,
  source: { uri?: string; tool?: string },
): Promise<string[]> {
  if (source.uri === undefined && source.tool === undefined) return [];
  return readIds(ctx, cypher('find-by-source'), {
    ownerId,
    uri: source.uri ?? null,
    tool: source.tool ?? null,
  });
}

export function observedIn(
  ctx: StoreContext,
  ownerId: string,
  sessionId: string,
): Promise<string[]> {
  return readIds(
    ctx,
    `MATCH (m:Memory)-[:OBSERVED_IN]->(:Session {ownerId: $ownerId, id: $sessionId})
     WHERE m.ownerId = $ownerId
     RETURN m.id AS id ORDER BY id`,
    { ownerId, sessionId },
  );
}

/** A page of a listing: ids after `after`, at most `limit` of them. */
interface Page {
  after?: string;
  limit?: number;
}

/**
 * One page of the ids `query` returns (it filters on `$after` and returns
 * `id`), in id order. No limit means all (the kit refuses a negative one).
 */
async function idPage(
  ctx: StoreContext,
  query: string,
  params: Record<string, unknown>,
  page: Page,
): Promise<string[]> {
  const all = page.limit === undefined;
  return readIds(ctx, `${query} ORDER BY id${all ? '' : ' LIMIT $limit'}`, {
    ...params,
    after: page.after ?? null,
    limit: int(all ? 0 : (page.limit ?? 0)),
  });
}

export function listIds(ctx: StoreContext, ownerId: string, opts: Page = {}): Promise<string[]> {
  return idPage(
    ctx,
    `MATCH (m:Memory {ownerId: $ownerId}) WHERE $after IS NULL OR m.id > $after
     RETURN m.id AS id`,
    { ownerId },
    opts,
  );
}

/** Owners with at least one memory (the Owner node's counter, kept in every write and cascade). */
export function listOwners(ctx: StoreContext, opts: Page = {}): Promise<string[]> {
  return idPage(
    ctx,
    `MATCH (o:Owner) WHERE o.memoryCount > 0 AND ($after IS NULL OR o.id > $after)
     RETURN o.id AS id`,
    {},
    opts,
  );
}

export function countMemories(ctx: StoreContext, ownerId: string): Promise<number> {
  return readCount(ctx, 'MATCH (m:Memory {ownerId: $ownerId}) RETURN count(m) AS n', ownerId);
}

/** A query of one owner returning one number `n` (0 when it returns no row). */
async function readCount(ctx: StoreContext, query: string, ownerId: string): Promise<number> {
  const [row] = await readRows<{ n: unknown }>(ctx, query, { ownerId });
  return num(row?.n ?? 0);
}

/** Eviction order: lowest confidence, then lowest authority, then oldest. */
export async function lowestValue(
  ctx: StoreContext,
  ownerId: string,
  limit: number,
): Promise<string[]> {
  return readIds(
    ctx,
    `MATCH (m:Memory {ownerId: $ownerId})
     RETURN m.id AS id ORDER BY m.confidence ASC, m.authorityRank ASC, m.createdMs ASC, m.id ASC
     LIMIT $limit`,
    { ownerId, limit: int(Math.max(0, limit)) },
  );
}

/** Direct children: memories derived from `id`. */
export async function derivedFrom(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): Promise<DerivedEdge[]> {
  if (ids.length === 0) return [];
  return readRows<DerivedEdge>(
    ctx,
    `MATCH (c:Memory)-[:DERIVED_FROM]->(p:Memory) USING INDEX SEEK p:Memory(id)
      WHERE p.id IN $ids AND p.ownerId = $ownerId AND c.ownerId = $ownerId
     RETURN p.id AS source, c.id AS child ORDER BY child, source`,
    { ownerId, ids: [...new Set(ids)] },
  );
}

/** Memories expired at `now`, oldest expiry first, across owners (sweeper). */
export async function dueForExpiry(
  ctx: StoreContext,
  now: string,
  limit: number,
): Promise<ExpiryCandidate[]> {
  const found = await readRows<{ ownerId: string; id: string; expiresAt: string }>(
    ctx,
    `MATCH (m:Memory) WHERE m.expiresMs <= $nowMs
     RETURN m.ownerId AS ownerId, m.id AS id, m.expiresAt AS expiresAt
     ORDER BY m.expiresMs, m.id LIMIT $limit`,
    { nowMs: toMs(now, 'now'), limit: int(Math.max(0, limit)) },
  );
  return found.map((r) => ({ ownerId: r.ownerId, id: r.id, expiresAt: r.expiresAt }));
}
