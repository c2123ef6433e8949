// The store conformance suite (STYLE habit 2): one function that every store
// package calls with a factory for its store. It is written against the
// engine and the MemoryStore port only, so it runs unchanged on any store.
// One file per invariant of DESIGN.md (two where it is long), plus
// retrieval, plus the outbox and the bookkeeping of background jobs and of
// the scheduled passes.
import { ownedSuite } from './invariants/01-owned.ts';
import { attributedSuite } from './invariants/02-attributed.ts';
import { authoritySuite } from './invariants/03-authority.ts';
import { policySuite } from './invariants/04-policy.ts';
import { copiesOutSuite } from './invariants/05-copies-out.ts';
import { expirySuite } from './invariants/06-expiry.ts';
import { deletionSuite } from './invariants/07-deletion.ts';
import { sessionAndOwnerDeletionSuite } from './invariants/07b-deletion-of-sessions-and-owners.ts';
import { noLaunderingSuite } from './invariants/08-no-laundering.ts';
import { dataNotInstructionsSuite } from './invariants/09-data-not-instructions.ts';
import { boundedSuite } from './invariants/10-bounded.ts';
import { auditedSuite } from './invariants/11-audited.ts';
import { retrievalSuite } from './invariants/12-retrieval.ts';
import { outboxSuite } from './invariants/13-outbox-and-jobs.ts';
import { jobBookkeepingSuite } from './invariants/13b-job-bookkeeping.ts';
import { storeOrderingsSuite } from './invariants/14-store-orderings.ts';
import { concurrencySuite } from './invariants/15-concurrency.ts';
import { listingSuite } from './invariants/16-listing.ts';
import { idempotencySuite } from './invariants/17-idempotency.ts';
import { graphReadsSuite, ownReadsSuite } from './invariants/18-graph-reads.ts';
import { readLogDryRunSuite } from './invariants/19-read-log-and-dry-runs.ts';
import { kpisSuite } from './invariants/19b-governance-kpis.ts';
import { scheduledPassesSuite } from './invariants/20-scheduled-passes.ts';
import { ownerStatisticsSuite } from './invariants/21-owner-statistics.ts';
import { inputHygieneSuite } from './invariants/22-input-hygiene.ts';
import type { ConformanceOptions } from './harness.ts';

export type { ConformanceOptions, StoreUnderTest } from './harness.ts';

export function runMemoryStoreConformance(opts: ConformanceOptions): void {
  ownedSuite(opts);
  attributedSuite(opts);
  authoritySuite(opts);
  policySuite(opts);
  copiesOutSuite(opts);
  expirySuite(opts);
  deletionSuite(opts);
  sessionAndOwnerDeletionSuite(opts);
  noLaunderingSuite(opts);
  dataNotInstructionsSuite(opts);
  boundedSuite(opts);
  auditedSuite(opts);
  retrievalSuite(opts);
  outboxSuite(opts);
  jobBookkeepingSuite(opts);
  storeOrderingsSuite(opts);
  concurrencySuite(opts);
  listingSuite(opts);
  idempotencySuite(opts);
  readLogDryRunSuite(opts);
  kpisSuite(opts);
  graphReadsSuite(opts);
  ownReadsSuite(opts);
  scheduledPassesSuite(opts);
  ownerStatisticsSuite(opts);
  inputHygieneSuite(opts);
}
