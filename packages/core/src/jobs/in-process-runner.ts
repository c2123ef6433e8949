// The embedded mode's job runner: the JobQueue port run in this process by
// the same processors BullMQ workers call. Idempotent ids (a job id seen
// recently is not run again), retries with exponential backoff, one job at
// a time per queue, metrics in the operators' shape, graceful close.
import { JOB_NAMES, type Job, type JobName, type JobQueue } from '../ports/job-queue.ts';
import { percentileOf, type QueueMetrics, type QueueMetricsSource } from './queue-metrics.ts';
import type { Processors } from './processors.ts';

export interface InProcessRunnerOptions {
  /** Attempts before a job is left failed (default 5). */
  attempts?: number;
  /** First retry delay; doubles each attempt (default 1000 ms). */
  backoffMs?: number;
  /** How many finished job ids to remember for de-duplication (default 10 000). */
  rememberIds?: number;
  onFailed?: (job: Job, error: unknown, final: boolean) => void;
  /**
   * Called (and awaited) once a job is done for good, completed or finally
   * failed, before the runner counts it finished: the embedded mode removes
   * the job from the store's outbox here, so a job the process never
   * finished (a crash, a shutdown) is still there at the next start.
   */
  onDone?: (job: Job) => Promise<void>;
  /** Told each job's processing time once it is done for good (metrics); must not throw. */
  onFinished?: (job: Job, outcome: 'completed' | 'failed', durationMs: number) => void;
}

interface Waiting {
  job: Job;
  attempt: number;
}

interface QueueState {
  waiting: Waiting[];
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  durations: number[];
}

export class InProcessJobRunner implements JobQueue, QueueMetricsSource {
  private readonly queues = new Map<JobName, QueueState>(
    JOB_NAMES.map((n) => [
      n,
      { waiting: [], active: 0, delayed: 0, failed: 0, completed: 0, durations: [] },
    ]),
  );
  /** Ids waiting, running, delayed or recently finished: enqueueing them again is a no-op. */
  private readonly known = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly rememberIds: number;

  constructor(
    private readonly processors: Processors,
    private readonly opts: InProcessRunnerOptions = {},
  ) {
    this.attempts = opts.attempts ?? 5;
    this.backoffMs = opts.backoffMs ?? 1000;
    this.rememberIds = opts.rememberIds ?? 10_000;
  }

  async enqueue(jobs: readonly Job[]): Promise<void> {
    if (this.closed) throw new Error('the job runner is closed');
    for (const job of jobs) {
      if (this.known.has(job.id)) continue;
      this.remember(job.id);
      this.queues.get(job.name)!.waiting.push({ job, attempt: 1 });
    }
    for (const name of JOB_NAMES) this.pump(name);
  }

  /** Resolves once nothing is waiting, running or waiting to retry. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async queueMetrics(): Promise<QueueMetrics[]> {
    return JOB_NAMES.map((name) => {
      const q = this.queues.get(name)!;
      const sorted = [...q.durations].sort((a, b) => a - b);
      return {
        name,
        waiting: q.waiting.length,
        active: q.active,
        delayed: q.delayed,
        failed: q.failed,
        completed: q.completed,
        durationMs: {
          p50: percentileOf(sorted, 50),
          p95: percentileOf(sorted, 95),
          samples: sorted.length,
        },
      };
    });
  }

  /** Stop taking jobs, drop retries not yet due, wait for running ones. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const q of this.queues.values()) {
      q.waiting = [];
      q.delayed = 0;
    }
    if (!this.isIdle()) await this.idle();
  }

  private async done(job: Job): Promise<void> {
    try {
      await this.opts.onDone?.(job);
    } catch (e) {
      this.opts.onFailed?.(job, e, true);
    }
  }

  private remember(id: string): void {
    this.known.add(id);
    // Sets iterate in insertion order: drop the oldest ids first.
    if (this.known.size > this.rememberIds) {
      const oldest = this.known.values().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }

  private isIdle(): boolean {
    return [...this.queues.values()].every(
      (q) => q.waiting.length === 0 && q.active === 0 && q.delayed === 0,
    );
  }

  private settle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private pump(name: JobName): void {
    const q = this.queues.get(name)!;
    if (q.active > 0 || q.waiting.length === 0) return;
    const next = q.waiting.shift()!;
    q.active++;
    void this.run(name, next.job, next.attempt);
  }

  private async run(name: JobName, job: Job, attempt: number): Promise<void> {
    const q = this.queues.get(name)!;
    const started = performance.now();
    try {
      await this.processors[name](job);
      const ms = performance.now() - started;
      q.completed++;
      q.durations.push(ms);
      if (q.durations.length > 200) q.durations.shift();
      this.opts.onFinished?.(job, 'completed', ms);
      await this.done(job);
    } catch (e) {
      const final = attempt >= this.attempts || this.closed;
      this.opts.onFailed?.(job, e, final);
      if (final) {
        q.failed++;
        this.opts.onFinished?.(job, 'failed', performance.now() - started);
        await this.done(job);
      } else {
        // Back in line after the backoff, so a retry never runs beside the
        // queue's next job.
        q.delayed++;
        const t = setTimeout(
          () => {
            this.timers.delete(t);
            q.delayed--;
            q.waiting.unshift({ job, attempt: attempt + 1 });
            this.pump(name);
          },
          this.backoffMs * 2 ** (attempt - 1),
        );
        this.timers.add(t);
      }
    } finally {
      q.active--;
      // The next job starts after the event loop has had a turn at I/O: in
      // embedded mode these jobs share the API's event loop, and a forget
      // that queued many re-derivations must not hold requests until the
      // last one is done (invariant 13).
      setImmediate(() => this.pump(name));
      this.settle();
    }
  }
}
