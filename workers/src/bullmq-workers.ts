// Server mode's job processing: one BullMQ Worker per queue, each calling
// the shared processor of its job name (core's createProcessors), with
// per-queue concurrency, BullMQ's retries (attempts and backoff are set
// where jobs are enqueued) and stalled-job recovery: a worker killed
// mid-job loses its lock and another worker runs the job again.
import { Worker, type ConnectionOptions, type Job as BullJob } from 'bullmq';
import { JOB_NAMES, type JobName, type Processors } from '@keepgraph/core';
import type { JobData } from './bullmq-job-queue.ts';

export interface WorkersOptions {
  connection: ConnectionOptions;
  prefix?: string;
  processors: Processors;
  /** Jobs run at once per queue (default 1 each; reflection and compaction are CPU-bound). */
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

export function startWorkers(opts: WorkersOptions): RunningWorkers {
  const workers = JOB_NAMES.map((name) => {
    const w = new Worker<JobData>(
      name,
      async (job: BullJob<JobData>) =>
        opts.processors[name]({
          name,
          id: decodeURIComponent(job.id ?? ''),
          ownerId: job.data.ownerId,
          payload: job.data.payload ?? {},
        }),
      {
        connection: opts.connection,
        ...(opts.prefix ? { prefix: opts.prefix } : {}),
        concurrency: opts.concurrency?.[name] ?? 1,
        lockDuration: opts.lockDurationMs ?? 30_000,
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
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
