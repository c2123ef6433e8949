// The schedules of server mode as BullMQ job schedulers (repeatable jobs):
// the expiry sweep, and the periodic reflection and compaction of every
// owner, at the periods the policy gives. Upserting is idempotent, so every
// worker process may install them at start. Like an enqueue, installing
// fails within the queue's timeout when Redis is unreachable.
import { ALL_OWNERS, type Policy } from '@keepgraph/core';
import type { BullMqJobQueue } from './bullmq-job-queue.ts';

export const SCHEDULER_IDS = {
  expire: 'keepgraph:expiry-sweep',
  reflect: 'keepgraph:reflect-all',
  compact: 'keepgraph:compact-all',
} as const;

export async function installSchedules(
  queue: BullMqJobQueue,
  policy: Policy,
  overrides: { expiryEveryMs?: number } = {},
): Promise<void> {
  // A queue holds its commands until Redis first answers, however long that
  // takes: wait for that within the queue's timeout instead.
  await queue.ready();
  const bg = policy.background;
  const every = {
    expire: overrides.expiryEveryMs ?? bg.expiry.sweepEvery * 1000,
    reflect: bg.reflection.every * 1000,
    compact: bg.compaction.every * 1000,
  } as const;
  // One expiry sweep at a time across every worker process (each worker
  // process also runs its expire queue one job at a time): two sweeps would
  // read the same due rows and race to purge them. Kept in Redis.
  await queue.queues.get('expire')!.setGlobalConcurrency(1);
  for (const name of ['expire', 'reflect', 'compact'] as const) {
    await queue.queues.get(name)!.upsertJobScheduler(
      SCHEDULER_IDS[name],
      { every: every[name] },
      {
        name,
        data: { ownerId: ALL_OWNERS, payload: { scheduled: true } },
        opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
      },
    );
  }
}
