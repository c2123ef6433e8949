// The JobQueue port on BullMQ: one queue per job name (reflect, compact,
// expire, rederive, reembed), so each kind of work has its own concurrency,
// retries and metrics. The job's own id is BullMQ's jobId, which makes
// enqueueing idempotent: the same id twice is one job. It also reports each
// queue's counts and recent processing times (core's QueueMetricsSource).
import { Queue, type ConnectionOptions } from 'bullmq';
import {
  JOB_NAMES,
  percentileOf,
  type Job,
  type JobName,
  type JobQueue,
  type QueueMetrics,
  type QueueMetricsSource,
} from '@keepgraph/core';

/** What a queued job carries (the port's Job minus what BullMQ holds itself). */
export interface JobData {
  ownerId: string;
  payload: Record<string, unknown>;
}

export interface BullMqJobQueueOptions {
  connection: ConnectionOptions;
  /** Redis key prefix, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
  /** Attempts before a job is left failed; retries back off exponentially from 1 s. */
  attempts?: number;
}

/** BullMQ's name for a job: ':' separates Redis key parts, so it cannot appear in a custom id. */
export function bullJobId(id: string): string {
  return encodeURIComponent(id);
}

/** How many of the most recently completed jobs the duration percentiles cover. */
export const DURATION_SAMPLE_SIZE = 200;

export class BullMqJobQueue implements JobQueue, QueueMetricsSource {
  readonly queues: ReadonlyMap<JobName, Queue<JobData>>;
  private readonly attempts: number;

  constructor(opts: BullMqJobQueueOptions) {
    this.attempts = opts.attempts ?? 5;
    this.queues = new Map(
      JOB_NAMES.map((name) => [
        name,
        new Queue<JobData>(name, {
          connection: opts.connection,
          ...(opts.prefix ? { prefix: opts.prefix } : {}),
        }),
      ]),
    );
  }

  async enqueue(jobs: readonly Job[]): Promise<void> {
    const byName = new Map<JobName, Job[]>();
    for (const j of jobs) byName.set(j.name, [...(byName.get(j.name) ?? []), j]);
    await Promise.all(
      [...byName].map(([name, list]) =>
        this.queues.get(name)!.addBulk(
          list.map((j) => ({
            name,
            data: { ownerId: j.ownerId, payload: j.payload },
            opts: {
              jobId: bullJobId(j.id),
              attempts: this.attempts,
              backoff: { type: 'exponential', delay: 1000 },
              // Kept a while after completion so a re-enqueue of the same id is still a no-op.
              removeOnComplete: { age: 24 * 3600 },
              removeOnFail: { age: 7 * 24 * 3600 },
            },
          })),
        ),
      ),
    );
  }

  /**
   * Counts per state and the p50/p95 processing time (finishedOn - processedOn)
   * of the last {@link DURATION_SAMPLE_SIZE} completed jobs still kept, for
   * every queue, in JOB_NAMES order.
   */
  async queueMetrics(): Promise<QueueMetrics[]> {
    return Promise.all(
      [...this.queues].map(async ([name, q]): Promise<QueueMetrics> => {
        const [counts, recent] = await Promise.all([
          q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed'),
          // Newest first: the completed set is ordered by finish time.
          q.getCompleted(0, DURATION_SAMPLE_SIZE - 1),
        ]);
        const durations = recent
          .flatMap((j) =>
            j.finishedOn !== undefined && j.processedOn !== undefined
              ? [j.finishedOn - j.processedOn]
              : [],
          )
          .sort((a, b) => a - b);
        return {
          name,
          waiting: counts.waiting ?? 0,
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          completed: counts.completed ?? 0,
          durationMs: {
            p50: percentileOf(durations, 50),
            p95: percentileOf(durations, 95),
            samples: durations.length,
          },
        };
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
