// The engine's decisions that a store applies inside its own transactions,
// handed to every store by the kit (store-kit.ts passes STORE_RULES to
// `open`, and stores keep it on their context). A store reads and writes;
// what a keyed write must find, how the audit chain is sealed, which jobs,
// events and receipt a cascade commits are decided here, once, and no store
// module imports them.
import { contentHash, GENESIS_HASH, sealAuditEvent, storedAuditForm } from '../domain/audit.ts';
import type { AuditEvent, AuditEventInput } from '../domain/audit.ts';
import { KeepGraphError } from '../domain/errors.ts';
import { rederiveJob } from '../domain/job-ids.ts';
import { cascadeAuditEvents, cascadeReceipt, type CascadeOutcome } from './cascade-audit.ts';
import type { Job } from './job-queue.ts';
import type { CascadeReceipt, CascadeRequest, WriteBatch } from './memory-store.ts';
import { checkKeyExpectation, outboxRecordedAt } from './store-checks.ts';

/** What a cascade commits beside its deletions, in the same transaction. */
export interface CascadeSettlement {
  receipt: CascadeReceipt;
  /** The rederive jobs, recorded in the outbox. */
  jobs: Job[];
  /** Appended to the audit chain. */
  audit: AuditEventInput[];
}

/** The decisions a store applies; the kit hands the one set, STORE_RULES, to every store. */
export interface StoreRules {
  /** The hash before the audit chain's first event. */
  readonly genesisHash: string;
  /** The event as stored (its JSON form), sealed after `prevHash` at `seq`. */
  sealAudit(input: AuditEventInput, seq: number, prevHash: string): AuditEvent;
  /** Throw `conflict` (reason key_changed) unless a keyed write found what it expected. */
  checkKey(expected: readonly string[], found: readonly string[]): void;
  /** When a batch's jobs enter the outbox. */
  outboxRecordedAt(batch: WriteBatch): string;
  /** The content hash of a text, to find a deleted memory's unlinked copies (session messages). */
  contentHash(text: string): string;
  /** Throw `not_found` when a cascade found none of its roots for this owner. */
  requireRoots(req: CascadeRequest, rootsFound: number): void;
  /** The receipt, rederive jobs and audit events of a cascade, from what the store found and deleted. */
  settleCascade(req: CascadeRequest, outcome: CascadeOutcome): CascadeSettlement;
}

export const STORE_RULES: StoreRules = {
  genesisHash: GENESIS_HASH,
  sealAudit: (input, seq, prevHash) => sealAuditEvent(storedAuditForm(input), seq, prevHash),
  checkKey: checkKeyExpectation,
  outboxRecordedAt: (batch) => outboxRecordedAt(batch),
  contentHash,
  requireRoots(req, rootsFound) {
    if (rootsFound === 0)
      throw new KeepGraphError('not_found', 'none of these memories exists for this owner', {
        requested: req.rootIds.length,
      });
  },
  settleCascade(req, outcome) {
    const receipt = cascadeReceipt(req, outcome);
    return {
      receipt,
      // The re-derivations commit with the deletion or not at all.
      jobs: outcome.rederive.map((r) => rederiveJob(req.ownerId, r, req.at)),
      audit: cascadeAuditEvents(req, receipt),
    };
  },
};
