// Oversight use-cases: the audit log (list, verify) and the KPIs. These are
// the only reads that may span owners (invariant 1): over every owner they
// need all-owners credentials; an analyst scoped to some owners reads one
// of them at a time (the registry's `ownerIn`).
import { verifyAuditChain, type AuditEvent, type AuditVerification } from '../audit.ts';
import { z } from 'zod';
import { identifierSchema } from '../record.ts';
import type { EngineDeps } from './deps.ts';
import type { StoreCounts } from '../ports/memory-store.ts';
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

export interface Kpis extends Pick<StoreCounts, 'owners' | 'memories' | 'byKind' | 'byAuthority'> {
  /** Share of memories with origin, authority, createdAt and expiresAt: 1 by construction. */
  attributedShare: number;
  refusals: Record<string, number>;
  writes: number;
  deletions: number;
  reads: number;
  expiry: {
    purged: number;
    /** Share purged within `toleranceMs` of their scheduled expiry (null when none purged yet). */
    onScheduleShare: number | null;
    toleranceMs: number;
    lagP50Ms: number | null;
    lagMaxMs: number | null;
  };
  auditEvents: number;
}

/**
 * Aggregate figures for operators. Expiry lag is measured from audit events.
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
  const counts = await deps.store.counts(opts.ownerId ? { ownerId: opts.ownerId } : {});
  const refusals: Record<string, number> = {};
  let writes = 0;
  let deletions = 0;
  let reads = 0;
  let events = 0;
  const lags: number[] = [];
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
      if (e.type === 'refuse')
        refusals[e.reason ?? 'unknown'] = (refusals[e.reason ?? 'unknown'] ?? 0) + 1;
      else if (e.type === 'write') writes++;
      else if (e.type === 'read') reads++;
      else if (['delete', 'expire', 'evict', 'revoke_source', 'forget_owner'].includes(e.type))
        deletions++;
      if (e.type === 'expire') {
        const scheduled = (e.details.scheduled ?? {}) as Record<string, string>;
        const purgedAt = new Date(String(e.details.purgedAt ?? e.at)).getTime();
        for (const s of Object.values(scheduled)) lags.push(purgedAt - new Date(s).getTime());
      }
    }
    afterSeq = page[page.length - 1]!.seq;
  }
  lags.sort((a, b) => a - b);
  return {
    owners: counts.owners,
    memories: counts.memories,
    attributedShare: counts.memories === 0 ? 1 : counts.attributed / counts.memories,
    byKind: counts.byKind,
    byAuthority: counts.byAuthority,
    refusals,
    writes,
    deletions,
    reads,
    expiry: {
      purged: lags.length,
      onScheduleShare:
        lags.length === 0 ? null : lags.filter((l) => l <= toleranceMs).length / lags.length,
      toleranceMs,
      lagP50Ms: lags.length ? lags[Math.floor(lags.length / 2)]! : null,
      lagMaxMs: lags.length ? lags[lags.length - 1]! : null,
    },
    auditEvents: events,
  };
}
