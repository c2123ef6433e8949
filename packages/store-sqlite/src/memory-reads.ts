// Owner-scoped lookups of memories: by id, by key, by source, listings and
// the orderings used by cap eviction and the expiry sweeper.
import { toMs } from '@keepgraph/core/ports';
import type { Memory } from '@keepgraph/core';
import type {
  DerivedEdge,
  ExpiryCandidate,
  SessionPredecessor,
  SessionSuccessor,
} from '@keepgraph/core/ports';
import { rowToMemory } from './row-mapping.ts';
import type { MemoryRow } from './row-mapping.ts';
import type { StoreContext } from './store-context.ts';

export function getById(ctx: StoreContext, ownerId: string, id: string): Memory | null {
  const row = ctx.st
    .sql('SELECT * FROM memories WHERE owner_id = ? AND id = ?')
    .get(ownerId, id) as MemoryRow | undefined;
  return row ? rowToMemory(row) : null;
}

/** The owner's memories among `ids`, in the order asked; unknown ids are skipped. */
export function getByIds(ctx: StoreContext, ownerId: string, ids: readonly string[]): Memory[] {
  if (ids.length === 0) return [];
  const rows = ctx.st
    .sql('SELECT * FROM memories WHERE owner_id = ? AND id IN (SELECT value FROM json_each(?))')
    .all(ownerId, JSON.stringify(ids)) as MemoryRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: Memory[] = [];
  for (const id of new Set(ids)) {
    const r = byId.get(id);
    if (r) out.push(rowToMemory(r));
  }
  return out;
}

/** Every version under (owner, key), newest first, superseded ones included. */
export function getByKey(ctx: StoreContext, ownerId: string, key: string): Memory[] {
  const rows = ctx.st
    .sql('SELECT * FROM memories WHERE owner_id = ? AND key = ? ORDER BY created_ms DESC, rid DESC')
    .all(ownerId, key) as MemoryRow[];
  return rows.map(rowToMemory);
}

/**
 * Memories whose own or inherited origins name the source uri or the tool.
 * Given both, a memory naming either matches.
 */
export function findBySource(
  ctx: StoreContext,
  ownerId: string,
  source: { uri?: string; tool?: string },
): string[] {
  if (source.uri === undefined && source.tool === undefined) return [];
  return ctx.st
    .file('find-by-source')
    .pluck()
    .all({
      ownerId,
      uri: source.uri ?? null,
      tool: source.tool ?? null,
    }) as string[];
}

export function observedIn(ctx: StoreContext, ownerId: string, sessionId: string): string[] {
  return ctx.st
    .sql('SELECT id FROM memories WHERE owner_id = ? AND session_id = ? ORDER BY id')
    .pluck()
    .all(ownerId, sessionId) as string[];
}

export function listIds(
  ctx: StoreContext,
  ownerId: string,
  opts: { after?: string; limit?: number } = {},
): string[] {
  return ctx.st
    .sql(
      `SELECT id FROM memories WHERE owner_id = @ownerId AND (@after IS NULL OR id > @after)
        ORDER BY id LIMIT @limit`,
    )
    .pluck()
    .all({ ownerId, after: opts.after ?? null, limit: opts.limit ?? -1 }) as string[];
}

export function listOwners(
  ctx: StoreContext,
  opts: { after?: string; limit?: number } = {},
): string[] {
  return ctx.st
    .sql(
      `SELECT DISTINCT owner_id FROM memories WHERE (@after IS NULL OR owner_id > @after)
        ORDER BY owner_id LIMIT @limit`,
    )
    .pluck()
    .all({ after: opts.after ?? null, limit: opts.limit ?? -1 }) as string[];
}

export function countMemories(ctx: StoreContext, ownerId: string): number {
  return ctx.st
    .sql('SELECT count(*) FROM memories WHERE owner_id = ?')
    .pluck()
    .get(ownerId) as number;
}

/** Eviction order: lowest confidence, then lowest authority, then oldest. */
export function lowestValue(ctx: StoreContext, ownerId: string, limit: number): string[] {
  return ctx.st
    .sql(
      `SELECT id FROM memories WHERE owner_id = ?
        ORDER BY confidence ASC, authority_rank ASC, created_ms ASC, id ASC LIMIT ?`,
    )
    .pluck()
    .all(ownerId, limit) as string[];
}

/** Direct children of any of `ids`: one index seek per id. */
export function derivedFrom(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): DerivedEdge[] {
  if (ids.length === 0) return [];
  return ctx.st
    .sql(
      `SELECT d.source_id AS source, d.child_id AS child
         FROM json_each(@ids) j
        CROSS JOIN derived_from d ON d.owner_id = @ownerId AND d.source_id = j.value
        ORDER BY d.child_id, d.source_id`,
    )
    .all({ ownerId, ids: JSON.stringify([...new Set(ids)]) }) as DerivedEdge[];
}

/**
 * The episode written just after (`next`) or just before (`previous`), by
 * rid, in the same session, for each of `ids`, with the id asked about.
 * The (owner_id, session_id) index carries rid, so each lookup is one seek.
 */
function neighbourInSession(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
  side: 'next' | 'previous',
): { asked: string; memory: Memory }[] {
  if (ids.length === 0) return [];
  const [cmp, order] = side === 'next' ? ['>', 'ASC'] : ['<', 'DESC'];
  // Driven by the ids (CROSS JOIN keeps that order: otherwise the planner
  // walks the owner's session index), the neighbour's rid by one seek each,
  // then its row by rid.
  const rows = ctx.st
    .sql(
      `WITH asked AS (
         SELECT p.id AS asked_id,
                (SELECT x.rid FROM memories x
                  WHERE x.owner_id = p.owner_id AND x.session_id = p.session_id
                    AND x.rid ${cmp} p.rid AND x.kind = 'episode'
                  ORDER BY x.rid ${order} LIMIT 1) AS neighbour_rid
           FROM json_each(@ids) j CROSS JOIN memories p ON p.id = j.value
          WHERE p.owner_id = @ownerId AND p.session_id IS NOT NULL)
       SELECT asked.asked_id, n.* FROM asked JOIN memories n ON n.rid = asked.neighbour_rid`,
    )
    .all({ ownerId, ids: JSON.stringify([...new Set(ids)]) }) as (MemoryRow & {
    asked_id: string;
  })[];
  return rows.map(({ asked_id, ...row }) => ({ asked: asked_id, memory: rowToMemory(row) }));
}

/** The episode written next (by rid) in the same session, for each of `ids`. */
export function nextInSession(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): SessionSuccessor[] {
  return neighbourInSession(ctx, ownerId, ids, 'next').map((n) => ({
    after: n.asked,
    memory: n.memory,
  }));
}

/** The episode written just before (by rid) in the same session, for each of `ids`. */
export function previousInSession(
  ctx: StoreContext,
  ownerId: string,
  ids: readonly string[],
): SessionPredecessor[] {
  return neighbourInSession(ctx, ownerId, ids, 'previous').map((n) => ({
    before: n.asked,
    memory: n.memory,
  }));
}

/** Memories expired at `now`, oldest expiry first, across owners (sweeper). */
export function dueForExpiry(ctx: StoreContext, now: string, limit: number): ExpiryCandidate[] {
  const rows = ctx.st
    .sql(
      `SELECT owner_id, id, expires_at FROM memories WHERE expires_ms <= ?
        ORDER BY expires_ms, id LIMIT ?`,
    )
    .all(toMs(now, 'now'), limit) as { owner_id: string; id: string; expires_at: string }[];
  return rows.map((r) => ({ ownerId: r.owner_id, id: r.id, expiresAt: r.expires_at }));
}
