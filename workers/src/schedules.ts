// The schedules of server mode as BullMQ job schedulers (repeatable jobs):
// the expiry sweep, and the periodic reflection and compaction of every
// owner, at the periods the policy gives. Upserting is idempotent, so every
// worker process may install them at start. Like an enqueue, installing
// fails within the queue's timeout when Redis is unreachable.
import { JOB_TYPES, SCHEDULED_JOBS, scheduleEveryMs } from '@keepgraph/core/jobs';
import { type Policy } from '@keepgraph/core/policy';
import { type JobName } from '@keepgraph/core/ports';
import type { BullMqJobQueue } from './bullmq-job-queue.ts';

/**
 * One BullMQ job scheduler per scheduled job of core's job registry. These
 * ids are in deployed Redis instances: changing one would leave the old
 * scheduler running beside the new one.
 */
export const SCHEDULER_IDS: Partial<Record<JobName, string>> = {
  expire: 'keepgraph:expiry-sweep',
  reflect: 'keepgraph:reflect-all',
  compact: 'keepgraph:compact-all',
};
const schedulerId = (name: JobName): string => SCHEDULER_IDS[name] ?? `keepgraph:scheduled-${name}`;

export async function installSchedules(
  queue: BullMqJobQueue,
  policy: Policy,
  overrides: { expiryEveryMs?: number } = {},
): Promise<void> {
  // A queue holds its commands until Redis first answers, however long that
  // takes: wait for that within the queue's timeout instead.
  await queue.ready();
  for (const { name, schedule } of SCHEDULED_JOBS) {
    const q = queue.queues.get(name)!;
    // A singleton (the expiry sweep) runs once at a time across every worker
    // process (each also runs that queue one job at a time): two sweeps would
    // read the same due rows and race to purge them. Kept in Redis.
    if (JOB_TYPES[name].singleton) await q.setGlobalConcurrency(1);
    const everyMs = scheduleEveryMs(name, schedule, policy, overrides);
    const job = schedule.job('scheduled');
    await q.upsertJobScheduler(
      schedulerId(name),
      { every: everyMs },
      {
        name,
        data: { ownerId: job.ownerId, payload: { ...job.payload, scheduled: true } },
        opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
      },
    );
  }
}
