// Reads over the entity graph and the operator aggregates: relation edges
// with the memories asserting them, and the store-wide counts.
import { toMs } from '@keepgraph/core/ports';
import type { RelationEdge, StoreCounts } from '@keepgraph/core/ports';
import { cypher } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { num, readRows } from './transactions.ts';

interface RelationRow {
  subjectName: string;
  subjectType: string;
  type: string;
  objectName: string;
  objectType: string;
  reasons: string[] | null;
  assertedBy: string[] | null;
}

/** The owner's relation edges; with `memoryIds`, only edges one of them asserts. */
export async function relations(
  ctx: StoreContext,
  ownerId: string,
  memoryIds?: readonly string[],
): Promise<RelationEdge[]> {
  const found = await readRows<RelationRow>(ctx, cypher('list-relations'), {
    ownerId,
    memoryIds: memoryIds === undefined ? null : [...memoryIds],
  });
  return found.map((r) => ({
    ownerId,
    subject: { name: r.subjectName, type: r.subjectType },
    type: r.type,
    object: { name: r.objectName, type: r.objectType },
    // '' marks an assertion without a reason (lists cannot hold null).
    reasons: [...new Set(r.reasons ?? [])].filter((x) => x !== '').sort(),
    assertedBy: [...new Set(r.assertedBy ?? [])].sort(),
  }));
}

/** Store-wide figures for operators (invariant 2 is measured here). */
export async function counts(
  ctx: StoreContext,
  opts: { ownerId?: string; now?: string } = {},
): Promise<StoreCounts> {
  const p = { ownerId: opts.ownerId ?? null };
  const [totals] = await readRows<{ memories: unknown; attributed: unknown }>(
    ctx,
    `MATCH (m:Memory) WHERE $ownerId IS NULL OR m.ownerId = $ownerId
     RETURN count(m) AS memories,
            count(CASE WHEN m.origin IS NOT NULL AND m.authority <> '' AND m.createdAt <> ''
                            AND m.expiresAt <> '' THEN 1 END) AS attributed`,
    p,
  );
  const [owners] = await readRows<{ n: unknown }>(
    ctx,
    'MATCH (o:Owner) WHERE o.memoryCount > 0 AND ($ownerId IS NULL OR o.id = $ownerId) RETURN count(o) AS n',
    p,
  );
  const group = async (query: string): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const r of await readRows<{ k: string; n: unknown }>(ctx, query, p)) out[r.k] = num(r.n);
    return out;
  };
  // percentileDisc picks a stored value, the lower median of an even count
  // (as SQLite's offset (n-1)/2 does); null over no rows.
  const [median] = await readRows<{ c: unknown }>(
    ctx,
    `MATCH (m:Memory) WHERE ($ownerId IS NULL OR m.ownerId = $ownerId)
       AND m.supersededBy IS NULL AND ($nowMs IS NULL OR m.expiresMs > $nowMs)
     RETURN percentileDisc(m.createdMs, 0.5) AS c`,
    { ...p, nowMs: opts.now === undefined ? null : toMs(opts.now, 'now') },
  );
  return {
    medianCreatedMs: median?.c === null || median?.c === undefined ? null : num(median.c),
    owners: num(owners?.n ?? 0),
    memories: num(totals?.memories ?? 0),
    attributed: num(totals?.attributed ?? 0),
    byKind: await group(
      'MATCH (m:Memory) WHERE $ownerId IS NULL OR m.ownerId = $ownerId RETURN m.kind AS k, count(*) AS n',
    ),
    byAuthority: await group(
      'MATCH (m:Memory) WHERE $ownerId IS NULL OR m.ownerId = $ownerId RETURN m.authority AS k, count(*) AS n',
    ),
  };
}
