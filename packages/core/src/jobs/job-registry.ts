// Every background job's traits, in one table: its payload's schema, whether
// it works on one owner at a time (so two workers never run it for the same
// owner at once), whether it is a singleton across every worker process,
// and its schedule from the policy. The processors read their payloads
// through it; the in-process runner, the BullMQ workers and both schedulers
// read the rest, so no job trait is spelled anywhere else.
import { z } from 'zod';
import { MEMORY_KINDS } from '../domain/record.ts';
import type { Policy } from '../policy/index.ts';
import type { Job, JobName } from '../ports/job-queue.ts';
import { parseInput } from '../services/deps.ts';
import { ALL_OWNERS, compactJob, expireJob, reembedJob, reflectJob } from '../domain/job-ids.ts';

/** A scheduled job: how often (from the policy) and the job each tick enqueues. */
export interface JobSchedule {
  everyMs(policy: Policy): number;
  job(tick: string): Job;
}

export interface JobType {
  /** What `job.payload` holds (a schedule's jobs may add `scheduled: true`). */
  payload: z.ZodType;
  /** Reads and writes one owner's derived memories: one run per owner at a time. */
  perOwner: boolean;
  /** One run at a time across every process (the expiry sweep: two would race for the same rows). */
  singleton: boolean;
  /** Enqueued on a timer, at the policy's period; null for jobs only writes trigger. */
  schedule: JobSchedule | null;
}

const scheduled = { scheduled: z.literal(true).optional() };

export const JOB_TYPES = {
  rederive: {
    payload: z.object({
      deletedDerivedId: z.string(),
      kind: z.enum(MEMORY_KINDS),
      // Jobs recorded before tags were, name none.
      tags: z.array(z.string()).optional(),
      survivingSources: z.array(z.string()).default([]),
    }),
    perOwner: true,
    singleton: false,
    schedule: null,
  },
  reflect: {
    payload: z.object({
      reason: z.enum(['count', 'negative', 'novelty', 'schedule', 'manual']).optional(),
      ...scheduled,
    }),
    perOwner: true,
    singleton: false,
    schedule: {
      everyMs: (p) => p.background.reflection.every * 1000,
      job: (tick) => reflectJob(ALL_OWNERS, 'schedule', tick),
    },
  },
  compact: {
    payload: z.object(scheduled),
    perOwner: true,
    singleton: false,
    schedule: {
      everyMs: (p) => p.background.compaction.every * 1000,
      job: (tick) => compactJob(ALL_OWNERS, tick),
    },
  },
  expire: {
    payload: z.object(scheduled),
    perOwner: false,
    singleton: true,
    schedule: { everyMs: (p) => p.background.expiry.sweepEvery * 1000, job: expireJob },
  },
  reembed: {
    // Enqueued once at start (the configured model may have changed), not on a timer.
    payload: z.object({ model: z.string().optional() }),
    perOwner: true,
    singleton: false,
    schedule: null,
  },
} as const satisfies Record<JobName, JobType>;

/** Every job name, the expiry sweep first (the one with a deadline). */
const SCHEDULE_ORDER = ['expire', 'reflect', 'compact', 'rederive', 'reembed'] as const;
// tsc fails here if a job name is missing from the order.
type Unordered = Exclude<JobName, (typeof SCHEDULE_ORDER)[number]>;
const everyJobOrdered: [Unordered] extends [never] ? true : Unordered = true;
void everyJobOrdered;

/**
 * The jobs that run on a timer, with their schedules, in SCHEDULE_ORDER (a
 * start that fails part way has installed the expiry sweep).
 */
export const SCHEDULED_JOBS = SCHEDULE_ORDER.flatMap((name) => {
  const s: JobSchedule | null = JOB_TYPES[name].schedule;
  return s ? [{ name, schedule: s }] : [];
});

/**
 * A schedule's period: the policy's, except the expiry sweep's when a
 * process overrides it (`expiryEveryMs`: tests and short-lived demos).
 */
export function scheduleEveryMs(
  name: JobName,
  schedule: JobSchedule,
  policy: Policy,
  overrides: { expiryEveryMs?: number } = {},
): number {
  return name === 'expire' && overrides.expiryEveryMs
    ? overrides.expiryEveryMs
    : schedule.everyMs(policy);
}

/** A job's payload, parsed by its type's schema (`invalid_input`, a final failure, when it does not fit). */
export function jobPayload<N extends JobName>(
  name: N,
  job: Job,
): z.output<(typeof JOB_TYPES)[N]['payload']> {
  return parseInput(JOB_TYPES[name].payload, job.payload) as z.output<
    (typeof JOB_TYPES)[N]['payload']
  >;
}

/** The re-embedding every start enqueues: memories stored by another model than `model`. */
export const startupJobs = (model: string): Job[] => [reembedJob(ALL_OWNERS, model)];
