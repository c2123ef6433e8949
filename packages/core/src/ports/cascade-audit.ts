// How a store records a deletion cascade in the audit log, the same on every
// store: the caller's events (or one made here, since a cascade is never
// unaudited), with the receipt's ids, hashes and counts on the first.
import type { AuditEventInput, AuditType } from '../domain/audit.ts';
import type { CascadeReceipt, CascadeRequest, DeletionReason } from './memory-store.ts';

/** The audit type that records a deletion for each reason. */
export const DELETION_AUDIT_TYPE: Readonly<Record<DeletionReason, AuditType>> = {
  forget: 'delete',
  expire: 'expire',
  cap: 'evict',
  revoke_source: 'revoke_source',
  forget_owner: 'forget_owner',
  correct: 'delete',
  forget_session: 'delete',
  restore: 'restore',
};

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** What a store measured while deleting: everything of the receipt that is not the request's. */
export type CascadeOutcome = Omit<CascadeReceipt, 'ownerId' | 'reason' | 'requested' | 'at'>;

/** The receipt of a cascade, the same shape on every store. */
export function cascadeReceipt(req: CascadeRequest, outcome: CascadeOutcome): CascadeReceipt {
  return {
    ownerId: req.ownerId,
    reason: req.reason,
    requested: [...req.rootIds],
    ...outcome,
    at: req.at,
  };
}

/** The events a store appends, in the cascade's own transaction. */
export function cascadeAuditEvents(
  req: CascadeRequest,
  receipt: CascadeReceipt,
): AuditEventInput[] {
  const events: AuditEventInput[] = req.audit.length
    ? [...req.audit]
    : [
        {
          type: DELETION_AUDIT_TYPE[req.reason] ?? 'delete',
          at: req.at,
          ownerId: req.ownerId,
          actor: 'store',
          role: 'system',
          memoryIds: [],
          contentHashes: [],
          reason: req.reason,
          details: {},
        },
      ];
  const [first, ...rest] = events as [AuditEventInput, ...AuditEventInput[]];
  const summarised: AuditEventInput = {
    ...first,
    memoryIds: union(first.memoryIds, receipt.deletedMemoryIds),
    contentHashes: union(first.contentHashes, receipt.deletedContentHashes),
    details: {
      ...first.details,
      // Read here, the last step before the commit: the request's whole way
      // through the cascade (a number, never text).
      ...(req.elapsedMs && { durationMs: Math.max(0, req.elapsedMs()) }),
      cascade: {
        requested: req.rootIds.length,
        memoriesDeleted: receipt.deletedMemoryIds.length,
        embeddingsDeleted: receipt.embeddingsDeleted,
        fullTextEntriesDeleted: receipt.fullTextEntriesDeleted,
        relationEdgesDeleted: receipt.relationEdgesDeleted,
        entitiesDeleted: receipt.entitiesDeleted,
        sessionMessagesDeleted: receipt.sessionMessagesDeleted,
        rederive: receipt.rederive.map((r) => r.id),
      },
    },
  };
  return [summarised, ...rest];
}
