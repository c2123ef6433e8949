// The BullMQ workers against a real Redis (started by the test setup): a
// processor's error that a retry cannot change fails the job at its first
// attempt, any other is retried; the expiry sweep runs one at a time
// whatever concurrency is asked for.
import { randomBytes } from 'node:crypto';
import { UnrecoverableError, type Job as BullJob } from 'bullmq';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { KeepGraphError } from '@keepgraph/core';
import { type Processor } from '@keepgraph/core/jobs';
import { JOB_NAMES, type Job, type JobName } from '@keepgraph/core/ports';
import {
  BullMqJobQueue,
  isFinalJobError,
  startWorkers,
  type JobData,
  type RunningWorkers,
} from '../src/index.ts';

const connection = { url: inject('redisUrl') };

/** Every processor does nothing, except those given. */
function processors(over: Partial<Record<JobName, Processor>>) {
  const idle: Processor = async () => ({});
  return Object.fromEntries(JOB_NAMES.map((n) => [n, over[n] ?? idle])) as Record<
    JobName,
    Processor
  >;
}

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

/** A queue and workers under a prefix of their own; resolves each failed or completed event. */
function setup(over: Partial<Record<JobName, Processor>>, attempts: number) {
  const prefix = `kgtest-${randomBytes(4).toString('hex')}`;
  const queue = new BullMqJobQueue({ connection, prefix, attempts });
  const failed: { job: BullJob<JobData> | undefined; err: Error }[] = [];
  let onSettled: ((outcome: 'completed' | 'failed') => void) | null = null;
  const workers: RunningWorkers = startWorkers({
    connection,
    prefix,
    processors: processors(over),
  });
  for (const w of workers.workers) {
    w.on('failed', (job, err) => {
      failed.push({ job, err });
      // Failed for good (no retry left, or unrecoverable), not waiting for another attempt.
      if (job && job.finishedOn !== undefined) onSettled?.('failed');
    });
    w.on('completed', () => onSettled?.('completed'));
  }
  cleanup = async () => {
    await workers.close();
    await Promise.all([...queue.queues.values()].map((q) => q.obliterate({ force: true })));
    await queue.close();
  };
  return {
    queue,
    workers,
    failed,
    /** Enqueue one job and wait until it completed or failed for good. */
    run(job: Job) {
      const settled = new Promise<'completed' | 'failed'>((resolve) => {
        onSettled = resolve;
      });
      return queue.enqueue([job]).then(() => settled);
    },
  };
}

const reflectJob = (ownerId: string): Job => ({
  name: 'reflect',
  id: `reflect:${ownerId}`,
  ownerId,
  payload: {},
});

describe('startWorkers: retries', () => {
  it('fails a job at its first attempt when the processor throws a code a retry cannot change', async () => {
    let calls = 0;
    const t = setup(
      {
        reflect: async () => {
          calls++;
          throw new KeepGraphError('owner_required', 'a non-blank owner id is required');
        },
      },
      5,
    );
    expect(await t.run(reflectJob('o-final'))).toBe('failed');
    expect(calls).toBe(1);
    expect(t.failed).toHaveLength(1);
    const { job, err } = t.failed[0]!;
    expect(job?.attemptsMade).toBe(1);
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err.cause as KeepGraphError).code).toBe('owner_required');
  });

  it('retries not_found (a racing cascade) and errors other than KeepGraphError', async () => {
    const thrown = [
      new KeepGraphError('not_found', 'no memory m-1 for this owner'),
      new Error('connection reset'),
    ];
    const t = setup(
      {
        reflect: async () => {
          const e = thrown.shift();
          if (e) throw e;
          return { ok: true };
        },
      },
      3,
    );
    // Backoff is exponential from 1 s: about 3 s for the two retries.
    expect(await t.run(reflectJob('o-retry'))).toBe('completed');
    expect(t.failed.map((f) => f.err)).toEqual([
      expect.objectContaining({ name: 'KeepGraphError', code: 'not_found' }),
      expect.objectContaining({ message: 'connection reset' }),
    ]);
  });
});

describe('isFinalJobError', () => {
  it('holds for input, authority and policy refusals, and for an aggregate of only those', () => {
    const final = new KeepGraphError('invalid_input', 'x');
    const passing = new KeepGraphError('store_unavailable', 'x');
    expect(isFinalJobError(final)).toBe(true);
    expect(isFinalJobError(new KeepGraphError('forbidden_role', 'x'))).toBe(true);
    expect(isFinalJobError(new KeepGraphError('refused_secret', 'x'))).toBe(true);
    expect(isFinalJobError(new KeepGraphError('not_found', 'x'))).toBe(false);
    expect(isFinalJobError(new KeepGraphError('conflict', 'x'))).toBe(false);
    expect(isFinalJobError(passing)).toBe(false);
    expect(isFinalJobError(new Error('x'))).toBe(false);
    // One owner failed for a passing reason: the retry redoes it.
    expect(isFinalJobError(new AggregateError([final, final], '2 of 2'))).toBe(true);
    expect(isFinalJobError(new AggregateError([final, passing], '2 of 2'))).toBe(false);
    expect(isFinalJobError(new AggregateError([], '0'))).toBe(false);
  });
});

describe('startWorkers: concurrency', () => {
  it('runs the expiry sweep one at a time, whatever concurrency is asked for', async () => {
    const prefix = `kgtest-${randomBytes(4).toString('hex')}`;
    const workers = startWorkers({
      connection,
      prefix,
      processors: processors({}),
      concurrency: { expire: 4, reflect: 3 },
    });
    cleanup = () => workers.close();
    const by = Object.fromEntries(workers.workers.map((w) => [w.name, w.concurrency]));
    expect(by).toMatchObject({ expire: 1, reflect: 3, compact: 1 });
  });
});
