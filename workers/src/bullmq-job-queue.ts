// The JobQueue port on BullMQ: one queue per job name (reflect, compact,
// expire, rederive, reembed), so each kind of work has its own concurrency,
// retries and metrics. The job's own id is BullMQ's jobId, which makes
// enqueueing idempotent: the same id twice is one job. It also reports each
// queue's counts and recent processing times (core's QueueMetricsSource).
//
// It is the producer side, and fails fast: while Redis is unreachable an
// enqueue rejects within `timeoutMs` instead of waiting for Redis to return,
// so the outbox relay reports the outage, keeps the jobs in the outbox and
// can be stopped. The workers, not this, are the side that waits for Redis.
import { Queue, isRedisInstance, type ConnectionOptions } from 'bullmq';
import { isKeepGraphError } from '@keepgraph/core';
import { percentileOf, type QueueMetrics, type QueueMetricsSource } from '@keepgraph/core/jobs';
import { JOB_NAMES, type Job, type JobName, type JobQueue } from '@keepgraph/core/ports';
import { withDeadline } from './deadlines.ts';
import { queueUnavailable, redisLiveness, type RedisLiveness } from './redis-liveness.ts';

/** What a queued job carries (the port's Job minus what BullMQ holds itself). */
export interface JobData {
  ownerId: string;
  payload: Record<string, unknown>;
}

export interface BullMqJobQueueOptions {
  /**
   * The Redis to produce to. Connection options (what the server's
   * `redisConnection()` returns, for the workers as well) are used as
   * {@link producerConnection} makes them: commands fail at once while Redis
   * is away instead of waiting for it. An ioredis instance is used as it is:
   * unless it was made with `enableOfflineQueue: false`, its commands wait
   * while Redis is away, and only `timeoutMs` makes the calls here give up.
   */
  connection: ConnectionOptions;
  /** Redis key prefix, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
  /** Attempts before a job is left failed; retries back off exponentially from 1 s. */
  attempts?: number;
  /**
   * How long `enqueue` and `queueMetrics` wait for Redis before they reject
   * (default {@link DEFAULT_PRODUCER_TIMEOUT_MS}). It covers the first
   * connection, when BullMQ holds every command until Redis answers whatever
   * the connection options say, and a Redis that stopped answering.
   */
  timeoutMs?: number;
}

/** Default of {@link BullMqJobQueueOptions.timeoutMs}. */
export const DEFAULT_PRODUCER_TIMEOUT_MS = 5000;

/**
 * The producer's connection: the options given, with ioredis's offline queue
 * off (a command while the connection is down rejects at once rather than
 * waiting for the reconnect) and one retry for a command in flight when the
 * connection drops (rather than resending it until Redis is back, which
 * `maxRetriesPerRequest: null`, required of BullMQ workers, would do).
 * ioredis still reconnects on its own; commands succeed again once it has.
 * An ioredis instance is returned as it is (its options are its own).
 */
export function producerConnection(connection: ConnectionOptions): ConnectionOptions {
  if (isRedisInstance(connection)) return connection;
  return { ...connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
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
  private readonly timeoutMs: number;
  /** Whether every queue's connection is up now. */
  private readonly redisUp: RedisLiveness;

  constructor(opts: BullMqJobQueueOptions) {
    this.attempts = opts.attempts ?? 5;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_PRODUCER_TIMEOUT_MS;
    const connection = producerConnection(opts.connection);
    this.queues = new Map(
      JOB_NAMES.map((name) => [
        name,
        new Queue<JobData>(name, {
          connection,
          // BullMQ's version check sends INFO once the connection is ready; if
          // Redis goes in that moment the queue's connection promise rejects
          // for good and every later call on that queue fails, though ioredis
          // reconnects. Without it nothing can fail between connecting and
          // use. The workers, which need the version, still check it.
          skipVersionCheck: true,
          ...(opts.prefix ? { prefix: opts.prefix } : {}),
        }),
      ]),
    );
    this.redisUp = redisLiveness([...this.queues.values()]);
  }

  /**
   * Run `op` once the connections of `queues` are ready, within `timeoutMs`;
   * while Redis cannot be reached it rejects with `queue_unavailable`.
   * BullMQ holds every command of a queue until its first connection is
   * ready, however long that takes; waiting for that here, and giving up
   * without sending anything once the deadline has passed, keeps abandoned
   * calls from piling up for a Redis that is not there.
   */
  private async within<T>(
    what: string,
    queues: readonly Queue[],
    op: () => Promise<T>,
  ): Promise<T> {
    const started = Date.now();
    try {
      return await withDeadline(
        this.timeoutMs,
        `Redis did not answer: ${what} gave up after ${this.timeoutMs} ms`,
        async (signal) => {
          await Promise.all(queues.map((q) => q.waitUntilReady()));
          signal.throwIfAborted();
          return op();
        },
      );
    } catch (e) {
      // Past the deadline, or failed while a connection is down: Redis is
      // unreachable (`queue_unavailable`), not a fault of this call.
      if (!isKeepGraphError(e) && (Date.now() - started >= this.timeoutMs || !this.redisUp()))
        throw queueUnavailable(e);
      throw e;
    }
  }

  /** Resolves once every queue is connected to Redis; rejects after `timeoutMs`. */
  async ready(): Promise<void> {
    await this.within('connecting', [...this.queues.values()], async () => {});
  }

  /**
   * Add the jobs to their queues (a job id already there is left as it is).
   * Rejects within `timeoutMs` if Redis is unreachable; an add that was
   * already sent may still land afterwards, which is harmless (same ids).
   */
  async enqueue(jobs: readonly Job[]): Promise<void> {
    if (jobs.length === 0) return;
    const byName = new Map<JobName, Job[]>();
    for (const j of jobs) byName.set(j.name, [...(byName.get(j.name) ?? []), j]);
    const queues = [...byName.keys()].map((name) => this.queues.get(name)!);
    await this.within('enqueue', queues, () =>
      Promise.all(
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
      ),
    );
  }

  /**
   * Counts per state and the p50/p95 processing time (finishedOn - processedOn)
   * of the last {@link DURATION_SAMPLE_SIZE} completed jobs still kept, for
   * every queue, in JOB_NAMES order. Rejects within `timeoutMs` with
   * `queue_unavailable` if Redis is unreachable.
   */
  async queueMetrics(): Promise<QueueMetrics[]> {
    return this.within('queue metrics', [...this.queues.values()], () =>
      Promise.all(
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
      ),
    );
  }

  /**
   * Close every queue's connection. Does not wait for Redis: while Redis is
   * away the QUIT cannot be sent (the offline queue is off), BullMQ's close
   * rejects and would leave ioredis reconnecting for ever, keeping the
   * process alive; the connection is dropped instead.
   */
  async close(): Promise<void> {
    await Promise.all(
      [...this.queues.values()].map(async (q) => {
        try {
          await q.close();
        } catch {
          // It only gets as far as QUIT once connected, so the client is there.
          void q.client.then(
            (c) => c.disconnect(),
            () => {},
          );
        }
      }),
    );
  }
}
