// Oversight use-cases: the audit log (list, verify) and the KPIs. These are
// the only reads that may span owners (invariant 1): over every owner they
// need all-owners credentials; an analyst scoped to some owners reads one
// of them at a time (the registry's `ownerIn`).
import { verifyAuditChain, type AuditEvent, type AuditVerification } from '../domain/audit.ts';
import { z } from 'zod';
import { identifierSchema } from '../domain/record.ts';
import type { EngineDeps } from '../services/deps.ts';
import { optionalArg, type ParsedArgs } from './define.ts';

export const AuditListArgs = [
  optionalArg(
    'filter',
    z
      .strictObject({
        ownerId: identifierSchema('ownerId').optional(),
        afterSeq: z.number().int().min(0).optional(),
        /** At most 1000 events a page (more is read as 1000). */
        limit: z.number().int().min(1).optional(),
      })
      .prefault({}),
  ),
] as const;

export async function auditList(
  deps: EngineDeps,
  { filter: opts }: ParsedArgs<typeof AuditListArgs>,
): Promise<AuditEvent[]> {
  return deps.store.listAudit({
    ownerId: opts.ownerId,
    afterSeq: opts.afterSeq,
    limit: Math.min(opts.limit ?? 100, 1000),
  });
}

/** Walk the whole chain in pages and verify every link. */
export async function auditVerify(deps: EngineDeps): Promise<AuditVerification> {
  const all: AuditEvent[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await deps.store.listAudit({ afterSeq, limit: 5000 });
    if (page.length === 0) break;
    all.push(...page);
    afterSeq = page[page.length - 1]!.seq;
  }
  return verifyAuditChain(all);
}

const nullableMs = z.number().nullable();

/** One UTC day of the audit log, for the KPIs over time. */
export const KpiDaySchema = z.object({
  /** YYYY-MM-DD, UTC. */
  day: z.string().describe('YYYY-MM-DD, UTC'),
  writes: z.number(),
  refusals: z.number(),
  /** Deletion events (forget, revoke, cap, expiry, owner, correction cascades). */
  deletions: z.number(),
  reads: z.number(),
  /** Memories purged by expiry. */
  expired: z.number().describe('Memories purged by expiry'),
  /** Share of that day's expiry purges on schedule (null when none). */
  onScheduleShare: z.number().nullable(),
  /** Median deletion propagation of that day's cascades (null when none was timed). */
  deletionP50Ms: nullableMs,
});
export type KpiDay = z.output<typeof KpiDaySchema>;

export const KpisSchema = z.object({
  owners: z.number(),
  memories: z.number(),
  /** Share of memories with origin, authority, createdAt and expiresAt: 1 by construction. */
  attributedShare: z.number(),
  /** Median age (now minus createdAt) of the live memories; null when there are none. */
  medianAgeMs: nullableMs.describe(
    'Median age (now minus createdAt) of the live memories; null when there are none',
  ),
  byKind: z.record(z.string(), z.number()),
  byAuthority: z.record(z.string(), z.number()),
  refusals: z.record(z.string(), z.number()),
  writes: z.number(),
  deletions: z.number(),
  reads: z.number(),
  expiry: z.object({
    purged: z.number(),
    /** Share purged within `toleranceMs` of their scheduled expiry (null when none purged yet). */
    onScheduleShare: z.number().nullable(),
    toleranceMs: z.number(),
    lagP50Ms: z.number().nullable(),
    lagMaxMs: z.number().nullable(),
  }),
  /**
   * From a deletion request reaching the engine to its cascade committing
   * (every row, vector, full-text entry and cache entry gone, in one
   * transaction): the cascades audited with `details.durationMs`.
   */
  deletionPropagation: z
    .object({ count: z.number(), p50Ms: nullableMs, maxMs: nullableMs })
    .describe(
      'From a deletion request reaching the engine to its cascade committing, over the timed cascades',
    ),
  /** One row per UTC day with audit events, oldest first, over the last SERIES_DAYS days. */
  series: z
    .array(KpiDaySchema)
    .describe('One row per UTC day with audit events, oldest first, over the last 90 days'),
  auditEvents: z.number(),
});
export type Kpis = z.output<typeof KpisSchema>;

/** How many days the KPI series reaches back (today included). */
export const SERIES_DAYS = 90;

const DELETION_TYPES: ReadonlySet<string> = new Set([
  'delete',
  'expire',
  'evict',
  'revoke_source',
  'forget_owner',
]);

/** The median of sorted numbers as the KPIs take it (the upper one of an even count), or null. */
const p50 = (sorted: readonly number[]) =>
  sorted.length ? sorted[Math.floor(sorted.length / 2)]! : null;
const ascending = (xs: number[]) => xs.sort((a, b) => a - b);

interface DayTally {
  writes: number;
  refusals: number;
  deletions: number;
  reads: number;
  lags: number[];
  durations: number[];
}

/**
 * Aggregate figures for operators. Expiry lag and deletion propagation are
 * measured from audit events, in the one scan that also makes the series.
 * With `ownerId`, every figure is that owner's.
 */
export const KpisArgs = [
  optionalArg(
    'options',
    z
      .strictObject({
        /** How late an expiry may be and still count as on schedule. */
        toleranceMs: z.number().int().min(0).optional(),
        ownerId: identifierSchema('ownerId').optional(),
      })
      .prefault({}),
  ),
] as const;

export async function kpis(
  deps: EngineDeps,
  { options: opts }: ParsedArgs<typeof KpisArgs>,
): Promise<Kpis> {
  const toleranceMs = opts.toleranceMs ?? 60_000;
  const now = deps.clock.now();
  const counts = await deps.store.counts({
    ...(opts.ownerId ? { ownerId: opts.ownerId } : {}),
    now: now.toISOString(),
  });
  const firstDay = new Date(now.getTime() - (SERIES_DAYS - 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  const days = new Map<string, DayTally>();
  const refusals: Record<string, number> = {};
  let writes = 0;
  let deletions = 0;
  let reads = 0;
  let events = 0;
  const lags: number[] = [];
  const durations: number[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await deps.store.listAudit({
      afterSeq,
      limit: 5000,
      ...(opts.ownerId ? { ownerId: opts.ownerId } : {}),
    });
    if (page.length === 0) break;
    for (const e of page) {
      events++;
      const day = new Date(e.at).toISOString().slice(0, 10);
      let t: DayTally | undefined;
      if (day >= firstDay) {
        t = days.get(day);
        if (!t) {
          t = { writes: 0, refusals: 0, deletions: 0, reads: 0, lags: [], durations: [] };
          days.set(day, t);
        }
      }
      if (e.type === 'refuse') {
        refusals[e.reason ?? 'unknown'] = (refusals[e.reason ?? 'unknown'] ?? 0) + 1;
        if (t) t.refusals++;
      } else if (e.type === 'write') {
        writes++;
        if (t) t.writes++;
      } else if (e.type === 'read') {
        reads++;
        if (t) t.reads++;
      } else if (DELETION_TYPES.has(e.type)) {
        deletions++;
        if (t) t.deletions++;
        const d = e.details.durationMs;
        if (typeof d === 'number' && Number.isFinite(d)) {
          durations.push(d);
          t?.durations.push(d);
        }
      }
      if (e.type === 'expire') {
        const scheduled = (e.details.scheduled ?? {}) as Record<string, string>;
        const purgedAt = new Date(String(e.details.purgedAt ?? e.at)).getTime();
        for (const s of Object.values(scheduled)) {
          const lag = purgedAt - new Date(s).getTime();
          lags.push(lag);
          t?.lags.push(lag);
        }
      }
    }
    afterSeq = page[page.length - 1]!.seq;
  }
  const onSchedule = (ls: readonly number[]) =>
    ls.length === 0 ? null : ls.filter((l) => l <= toleranceMs).length / ls.length;
  ascending(lags);
  ascending(durations);
  return {
    owners: counts.owners,
    memories: counts.memories,
    attributedShare: counts.memories === 0 ? 1 : counts.attributed / counts.memories,
    medianAgeMs:
      counts.medianCreatedMs === null ? null : Math.max(0, now.getTime() - counts.medianCreatedMs),
    byKind: counts.byKind,
    byAuthority: counts.byAuthority,
    refusals,
    writes,
    deletions,
    reads,
    expiry: {
      purged: lags.length,
      onScheduleShare: onSchedule(lags),
      toleranceMs,
      lagP50Ms: p50(lags),
      lagMaxMs: lags.length ? lags[lags.length - 1]! : null,
    },
    deletionPropagation: {
      count: durations.length,
      p50Ms: p50(durations),
      maxMs: durations.length ? durations[durations.length - 1]! : null,
    },
    series: [...days.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([day, t]) => ({
        day,
        writes: t.writes,
        refusals: t.refusals,
        deletions: t.deletions,
        reads: t.reads,
        expired: t.lags.length,
        onScheduleShare: onSchedule(t.lags),
        deletionP50Ms: p50(ascending(t.durations)),
      })),
    auditEvents: events,
  };
}
