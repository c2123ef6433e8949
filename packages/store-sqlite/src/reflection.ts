// Reflection's bookkeeping: which episodes it has consumed (the store-
// internal reflected_at marker, never part of a returned Memory) and which
// live episodes still wait for it; and compaction's read, the newest live
// source memories.
import { toMs } from '@keepgraph/core/ports';
import type { Memory } from '@keepgraph/core';
import type { WriteBatch } from '@keepgraph/core/ports';
import { rowToMemory } from './row-mapping.ts';
import type { MemoryRow } from './row-mapping.ts';
import type { Statements } from './queries.ts';
import type { StoreContext } from './store-context.ts';

/**
 * Mark the batch's reflected episodes. Owner-scoped: ids of another owner
 * or unknown ids match no row. Call inside the caller's write transaction.
 */
export function markReflected(st: Statements, marks: NonNullable<WriteBatch['reflected']>): void {
  const mark = st.sql(
    `UPDATE memories SET reflected_at = @at
      WHERE owner_id = @ownerId AND id IN (SELECT value FROM json_each(@ids))`,
  );
  for (const r of marks) {
    if (r.ids.length === 0) continue;
    toMs(r.at, 'reflected.at');
    mark.run({ ownerId: r.ownerId, ids: JSON.stringify(r.ids), at: r.at });
  }
}

/** Live episodes not yet reflected, oldest first (write order). */
export function unreflectedEpisodes(
  ctx: StoreContext,
  ownerId: string,
  opts: { now: string; limit: number },
): Memory[] {
  if (opts.limit === 0) return [];
  const rows = ctx.st
    .file('unreflected-episodes')
    .all({ ownerId, nowMs: toMs(opts.now, 'now'), limit: opts.limit }) as MemoryRow[];
  return rows.map(rowToMemory);
}

/** The owner's newest live source memories (no DERIVED_FROM), newest first (write order). */
export function recentSources(
  ctx: StoreContext,
  ownerId: string,
  opts: { now: string; limit: number },
): Memory[] {
  const nowMs = toMs(opts.now, 'now');
  if (opts.limit === 0) return [];
  const rows = ctx.st
    .file('recent-sources')
    .all({ ownerId, nowMs, limit: opts.limit }) as MemoryRow[];
  return rows.map(rowToMemory);
}

/** How many episodes unreflectedEpisodes would return without a limit. */
export function countUnreflected(
  ctx: StoreContext,
  ownerId: string,
  now: string,
  upTo?: number,
): number {
  return ctx.st
    .file('count-unreflected')
    .pluck()
    .get({ ownerId, nowMs: toMs(now, 'now'), upTo: upTo ?? -1 }) as number;
}
