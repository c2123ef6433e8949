// Server mode's job processing: one BullMQ Worker per queue, each calling
// the shared processor of its job name (core's createProcessors), with
// per-queue concurrency, BullMQ's retries (attempts and backoff are set
// where jobs are enqueued) and stalled-job recovery: a worker killed
// mid-job loses its lock and another worker runs the job again. A job
// that failed for a reason a retry cannot change fails at once instead.
import {
  DelayedError,
  UnrecoverableError,
  Worker,
  type ConnectionOptions,
  type Job as BullJob,
} from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { isKeepGraphError, isRefusalCode, type ErrorCode } from '@keepgraph/core';
import { ALL_OWNERS, JOB_TYPES, type Processors } from '@keepgraph/core/jobs';
import { JOB_NAMES, type JobName } from '@keepgraph/core/ports';
import type { JobData } from './bullmq-job-queue.ts';
import { ownerLock, type OwnerLock } from './owner-lock.ts';

/**
 * Codes that fail a job for good: the job itself is wrong (its data, the
 * caller it runs as), the policy refuses what it would write (`refused_*`,
 * final as well) or is itself invalid, and running it again gives the same
 * answer; BullMQ keeps the failed job, which an operator can retry from
 * Bull Board once the cause is fixed. Not among them: `not_found` and `conflict`, which come from another
 * write racing this job (a cascade deleting what it was reading); the retry
 * reads the settled state and finishes what is left, the processors being
 * idempotent. Infrastructure codes (`store_unavailable`...) retry too.
 */
export const FINAL_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_input',
  'payload_too_large',
  'owner_required',
  'forbidden_role',
  'authority_exceeds_role',
  'invalid_policy',
]);

/** Whether retrying cannot help: a final KeepGraphError, or an aggregate of only such errors. */
export function isFinalJobError(e: unknown): boolean {
  if (isKeepGraphError(e)) return FINAL_ERROR_CODES.has(e.code) || isRefusalCode(e.code);
  // forEachOwner's failure: retrying helps if any owner failed for a passing reason.
  if (e instanceof AggregateError) return e.errors.length > 0 && e.errors.every(isFinalJobError);
  return false;
}

/** What a processor threw, as BullMQ should see it: final errors as UnrecoverableError (cause kept). */
function forBullMq(e: unknown): unknown {
  if (!isFinalJobError(e)) return e;
  const code = isKeepGraphError(e) ? `${e.code}: ` : '';
  const final = new UnrecoverableError(`${code}${e instanceof Error ? e.message : String(e)}`);
  final.cause = e;
  return final;
}

export interface WorkersOptions {
  connection: ConnectionOptions;
  prefix?: string;
  processors: Processors;
  /**
   * Jobs run at once per queue (default 1 each; reflection and compaction
   * are CPU-bound). `expire` always runs one at a time, whatever is given:
   * two sweeps at once would read the same due rows and race to purge them
   * (across worker processes, `installSchedules` sets the queue's global
   * concurrency to 1 as well).
   */
  concurrency?: Partial<Record<JobName, number>>;
  /**
   * How long a job's lock lasts without renewal (default 30 s). A killed
   * worker's jobs are taken over once it lapses and a stalled check runs.
   */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  onFailed?: (name: JobName, jobId: string | undefined, error: Error) => void;
  onCompleted?: (name: JobName, jobId: string | undefined, result: unknown) => void;
}

export interface RunningWorkers {
  workers: readonly Worker[];
  /** Stop taking jobs and wait for running ones to finish (graceful shutdown). */
  close(): Promise<void>;
}

/** How long close waits for a worker's connections to finish initialising. */
const READY_BEFORE_CLOSE_MS = 2_000;

/** Wait for `p` to settle, at most `ms`; never rejects. */
async function settledWithin(ms: number, p: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    bound,
  ]);
  clearTimeout(timer);
}

export function startWorkers(opts: WorkersOptions): RunningWorkers {
  const lockMs = opts.lockDurationMs ?? 30_000;
  // An ioredis instance given as the connection is BullMQ's to share; the
  // owner lock needs options to open its own.
  const locks: OwnerLock | null =
    typeof (opts.connection as { duplicate?: unknown }).duplicate === 'function'
      ? null
      : ownerLock({
          connection: opts.connection as RedisOptions,
          prefix: opts.prefix ?? 'bull',
          ttlMs: lockMs,
        });
  const workers = JOB_NAMES.map((name) => {
    const w = new Worker<JobData>(
      name,
      async (job: BullJob<JobData>, token?: string) => {
        const run = () =>
          opts.processors[name]({
            name,
            id: decodeURIComponent(job.id ?? ''),
            ownerId: job.data.ownerId,
            payload: job.data.payload ?? {},
          });
        try {
          // A per-owner job runs for one owner at a time, across every worker.
          if (!locks || !JOB_TYPES[name].perOwner || job.data.ownerId === ALL_OWNERS)
            return await run();
          const r = await locks.tryWith(job.data.ownerId, run);
          if (r.ran) return r.value;
        } catch (e) {
          throw forBullMq(e);
        }
        // Another worker holds this owner: come back shortly, no attempt spent.
        await job.moveToDelayed(Date.now() + 500 + Math.floor(Math.random() * 500), token);
        throw new DelayedError();
      },
      {
        connection: opts.connection,
        ...(opts.prefix ? { prefix: opts.prefix } : {}),
        concurrency: JOB_TYPES[name].singleton ? 1 : (opts.concurrency?.[name] ?? 1),
        lockDuration: lockMs,
        stalledInterval: opts.stalledIntervalMs ?? 30_000,
        // A job that stalls this often is more likely killing its worker than unlucky.
        maxStalledCount: 3,
      },
    );
    w.on('failed', (job, err) => opts.onFailed?.(name, job?.id, err));
    w.on('completed', (job, result) => opts.onCompleted?.(name, job.id, result));
    // Without a listener an 'error' event (Redis gone) would crash the process.
    w.on('error', (err) => opts.onFailed?.(name, undefined, err));
    return w;
  });
  return {
    workers,
    async close() {
      // A worker closed while its connections still initialise disconnects
      // them, and BullMQ's fire-and-forget init commands then reject with
      // nobody awaiting ("Connection is closed", unhandled). Letting init
      // finish first makes close quit cleanly; the bound keeps an
      // unreachable Redis from holding the shutdown (its readiness never comes).
      await Promise.all(
        workers.map(async (w) => {
          await settledWithin(READY_BEFORE_CLOSE_MS, w.waitUntilReady());
          await w.close();
        }),
      );
      await locks?.close();
    },
  };
}
