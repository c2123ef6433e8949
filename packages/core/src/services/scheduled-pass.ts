// The scheduled consolidation, incremental: a schedule's tick no longer
// reflects and compacts every owner in one job (hours at 10k owners). Every
// memory write makes its owner due for the consolidation schedules, in the
// write's own transaction; a tick records one job per due owner in the
// outbox, clearing each owner in the same transaction, and the queue runs
// those jobs like any other per-owner job: owners take turns, and one large
// owner holds up only its own job. An owner without writes since its last
// pass costs nothing.
import type { Job } from '../ports/job-queue.ts';
import type { MemoryStore, WriteBatch } from '../ports/memory-store.ts';
import type { Memory } from '../domain/record.ts';
import { compactJob, reflectJob } from '../domain/job-ids.ts';

/** The schedules that fan out to owners, and the per-owner job each records. */
export const FAN_OUT = {
  reflect: (ownerId: string, anchor: string): Job => reflectJob(ownerId, 'schedule', anchor),
  compact: (ownerId: string, anchor: string): Job => compactJob(ownerId, anchor),
} as const;
export type FanOutSchedule = keyof typeof FAN_OUT;

/** Owners recorded per outbox transaction. */
export const FAN_OUT_PAGE = 500;

/**
 * The passes a write of `memories` makes its owner due for: compaction for
 * any memory, reflection only when an episode is among them (it reads
 * nothing else).
 */
export function passesDue(
  ownerId: string,
  memories: readonly { memory: Pick<Memory, 'kind'> }[],
): NonNullable<WriteBatch['due']> {
  if (memories.length === 0) return [];
  const schedules: FanOutSchedule[] = memories.some((w) => w.memory.kind === 'episode')
    ? ['reflect', 'compact']
    : ['compact'];
  return schedules.map((schedule) => ({ schedule, ownerId }));
}

/**
 * One scheduled pass of `schedule`: every due owner gets its job (id from
 * `anchor`, the pass's instant), recorded in the outbox a page at a time,
 * and stops being due in the same transaction. A crash part way leaves the
 * rest due for the next pass; a write during the pass makes its owner due
 * again, for the next one.
 */
export async function fanOutScheduledPass(
  store: Pick<MemoryStore, 'duePasses' | 'write'>,
  schedule: FanOutSchedule,
  anchor: string,
): Promise<{ owners: number }> {
  let after: string | undefined;
  let owners = 0;
  for (;;) {
    const page = await store.duePasses(schedule, {
      ...(after ? { after } : {}),
      limit: FAN_OUT_PAGE,
    });
    if (page.length === 0) return { owners };
    await store.write({
      memories: [],
      supersede: [],
      sessionMessages: [],
      audit: [],
      jobs: page.map((p) => FAN_OUT[schedule](p.ownerId, anchor)),
      passed: page,
    });
    owners += page.length;
    if (page.length < FAN_OUT_PAGE) return { owners };
    after = page[page.length - 1]!.ownerId;
  }
}
