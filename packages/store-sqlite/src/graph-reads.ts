// Reads over the entity graph and the operator aggregates: relation edges
// with the memories asserting them, and the store-wide counts.
import { toMs } from '@keepgraph/core/ports';
import type { RelationEdge, StoreCounts } from '@keepgraph/core/ports';
import type { StoreContext } from './store-context.ts';

interface RelationRow {
  owner_id: string;
  subject_name: string;
  subject_type: string;
  type: string;
  object_name: string;
  object_type: string;
  reasons_json: string;
  asserted_json: string;
}

/** The owner's relation edges; with `memoryIds`, only edges one of them asserts. */
export function relations(
  ctx: StoreContext,
  ownerId: string,
  memoryIds?: readonly string[],
): RelationEdge[] {
  const rows = ctx.st.file('list-relations').all({
    ownerId,
    memoryIds: memoryIds === undefined ? null : JSON.stringify(memoryIds),
  }) as RelationRow[];
  return rows.map((r) => ({
    ownerId: r.owner_id,
    subject: { name: r.subject_name, type: r.subject_type },
    type: r.type,
    object: { name: r.object_name, type: r.object_type },
    reasons: (JSON.parse(r.reasons_json) as (string | null)[])
      .filter((x): x is string => x !== null)
      .sort(),
    assertedBy: (JSON.parse(r.asserted_json) as string[]).sort(),
  }));
}

/** Store-wide figures for operators, or one owner's (invariant 2 is measured here). */
export function counts(
  ctx: StoreContext,
  opts: { ownerId?: string; now?: string } = {},
): StoreCounts {
  const owner = opts.ownerId ?? null;
  const totals = ctx.st
    .sql(
      `SELECT count(DISTINCT owner_id) AS owners, count(*) AS memories,
              coalesce(sum(origin_json IS NOT NULL AND json_valid(origin_json) AND authority <> ''
                           AND created_at <> '' AND expires_at <> ''), 0) AS attributed
         FROM memories WHERE (@owner IS NULL OR owner_id = @owner)`,
    )
    .get({ owner }) as { owners: number; memories: number; attributed: number };
  const group = (column: 'kind' | 'authority'): Record<string, number> => {
    const out: Record<string, number> = {};
    const rows = ctx.st
      .sql(
        `SELECT ${column} AS k, count(*) AS n FROM memories
          WHERE (@owner IS NULL OR owner_id = @owner) GROUP BY ${column}`,
      )
      .all({ owner }) as {
      k: string;
      n: number;
    }[];
    for (const r of rows) out[r.k] = r.n;
    return out;
  };
  // The median without reading the rows out: count the live ones, then one
  // row at offset (n-1)/2 in createdAt order (Neo4j's percentileDisc picks
  // the same, the lower median).
  const live = `FROM memories WHERE (@owner IS NULL OR owner_id = @owner)
                  AND superseded_by IS NULL AND (@nowMs IS NULL OR expires_ms > @nowMs)`;
  const nowMs = opts.now === undefined ? null : toMs(opts.now, 'now');
  const { n } = ctx.st.sql(`SELECT count(*) AS n ${live}`).get({ owner, nowMs }) as { n: number };
  const median =
    n === 0
      ? undefined
      : (ctx.st
          .sql(`SELECT created_ms AS c ${live} ORDER BY created_ms LIMIT 1 OFFSET @offset`)
          .get({ owner, nowMs, offset: Math.floor((n - 1) / 2) }) as { c: number } | undefined);
  return {
    ...totals,
    byKind: group('kind'),
    byAuthority: group('authority'),
    medianCreatedMs: median?.c ?? null,
  };
}
