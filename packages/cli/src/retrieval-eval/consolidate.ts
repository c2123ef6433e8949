// Consolidation as the product ships it, for the benchmark: the jobs an
// owner's writes recorded in the outbox, then the scheduled reflection and
// compaction of that owner, run to idle by the in-process background that
// `keepgraph start` runs (same relay, runner and processors; no timers, so
// nothing starts while questions are being asked).
import { performance } from 'node:perf_hooks';
import { isLiveAt, type Engine } from '@keepgraph/core';
import { compactJob, reflectJob, startInProcessBackground } from '@keepgraph/core/jobs';

/** What consolidating one owner did. */
export interface ConsolidationSummary {
  /** Wall time from the first relay to an empty outbox and an idle runner. */
  idleMs: number;
  /** Live derived memories (with DERIVED_FROM) by kind once idle. */
  derivedLive: Record<string, number>;
  /** Derived memories written, live or since superseded, by kind. */
  derivedWritten: Record<string, number>;
}

/** Page size when counting an owner's memories. */
const PAGE = 1000;

/** Count the owner's derived memories by kind, live and all. */
async function countDerived(
  engine: Engine,
  ownerId: string,
): Promise<Pick<ConsolidationSummary, 'derivedLive' | 'derivedWritten'>> {
  const { store, clock } = engine.deps;
  const now = clock.now().toISOString();
  const derivedLive: Record<string, number> = {};
  const derivedWritten: Record<string, number> = {};
  let after: string | undefined;
  for (;;) {
    const ids = await store.listIds(ownerId, { limit: PAGE, ...(after ? { after } : {}) });
    if (ids.length === 0) break;
    for (const m of await store.getByIds(ownerId, ids)) {
      if (m.derivedFrom.length === 0) continue;
      derivedWritten[m.kind] = (derivedWritten[m.kind] ?? 0) + 1;
      if (isLiveAt(m, now)) derivedLive[m.kind] = (derivedLive[m.kind] ?? 0) + 1;
    }
    after = ids[ids.length - 1];
    if (ids.length < PAGE) break;
  }
  return { derivedLive, derivedWritten };
}

/**
 * Run the owner's consolidation to idle: what its writes triggered, then one
 * scheduled reflection and compaction of it, each settled (the outbox empty,
 * nothing waiting, running or due for a retry).
 */
export async function consolidateOwner(
  engine: Engine,
  ownerId: string,
): Promise<ConsolidationSummary> {
  const failures: unknown[] = [];
  const background = startInProcessBackground(engine, {
    schedules: false,
    onError: (e) => failures.push(e),
  });
  const t0 = performance.now();
  try {
    await background.settle();
    const tick = engine.deps.clock.now().toISOString();
    await background.runner.enqueue([
      reflectJob(ownerId, 'schedule', tick),
      compactJob(ownerId, tick),
    ]);
    await background.settle();
  } finally {
    await background.stop();
  }
  const idleMs = Math.round(performance.now() - t0);
  if (failures.length > 0) {
    const first = failures[0];
    throw new Error(
      `consolidation of ${ownerId}: ${failures.length} job(s) failed; first: ${first instanceof Error ? first.message : String(first)}`,
    );
  }
  return { idleMs, ...(await countDerived(engine, ownerId)) };
}
