// Reflection's bookkeeping: which episodes it has consumed (the store-
// internal reflectedAt property, never part of a returned Memory) and which
// live episodes still wait for it; and compaction's read, the newest live
// source memories.
import { toMs } from '@keepgraph/core/ports';
import type { Memory } from '@keepgraph/core';
import type { WriteBatch } from '@keepgraph/core/ports';
import { cypher } from './queries.ts';
import { propsToMemory } from './record-mapping.ts';
import type { StoreContext } from './store-context.ts';
import { int, num, readRows } from './transactions.ts';
import type { Tx } from './transactions.ts';

/**
 * Mark the batch's reflected episodes. Owner-scoped: ids of another owner
 * or unknown ids match nothing. Call inside the caller's write transaction.
 */
export async function markReflected(
  tx: Tx,
  marks: NonNullable<WriteBatch['reflected']>,
): Promise<void> {
  const params = marks
    .filter((r) => r.ids.length > 0)
    .map((r) => {
      toMs(r.at, 'reflected.at');
      return { ownerId: r.ownerId, ids: [...new Set(r.ids)], at: r.at };
    });
  if (params.length === 0) return;
  await tx.run(cypher('mark-reflected'), { marks: params });
}

/** An owner's live memories a query finds at `now`, at most `limit` (the query orders them). */
async function liveMemories(
  ctx: StoreContext,
  query: 'unreflected-episodes' | 'recent-sources',
  ownerId: string,
  opts: { now: string; limit: number },
): Promise<Memory[]> {
  const nowMs = toMs(opts.now, 'now');
  if (opts.limit === 0) return [];
  const found = await readRows<{ m: Record<string, unknown> }>(ctx, cypher(query), {
    ownerId,
    nowMs,
    limit: int(opts.limit),
  });
  return found.map((r) => propsToMemory(r.m));
}

/** Live episodes not yet reflected, oldest first (write order). */
export const unreflectedEpisodes = (
  ctx: StoreContext,
  ownerId: string,
  opts: { now: string; limit: number },
): Promise<Memory[]> => liveMemories(ctx, 'unreflected-episodes', ownerId, opts);

/** The owner's newest live source memories (no DERIVED_FROM), newest first (write order). */
export const recentSources = (
  ctx: StoreContext,
  ownerId: string,
  opts: { now: string; limit: number },
): Promise<Memory[]> => liveMemories(ctx, 'recent-sources', ownerId, opts);

/** How many episodes unreflectedEpisodes would return without a limit. */
export async function countUnreflected(
  ctx: StoreContext,
  ownerId: string,
  now: string,
  upTo?: number,
): Promise<number> {
  const [row] = await readRows<{ n: unknown }>(ctx, cypher('count-unreflected'), {
    ownerId,
    nowMs: toMs(now, 'now'),
    // Cypher's LIMIT takes an integer: "all" is the largest one.
    upTo: int(upTo ?? Number.MAX_SAFE_INTEGER),
  });
  return num(row?.n ?? 0);
}
