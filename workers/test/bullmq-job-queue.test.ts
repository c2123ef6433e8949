// The JobQueue port on BullMQ against a real Redis (started by the test
// setup): jobs land in their own queue, the same id twice is one job, a
// BullMQ worker receives what the engine enqueued, and the queues report
// their counts and processing times. Without Redis (nothing listening, or a
// redis-server of the test's own stopped) the producer fails fast.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { defaultPolicy } from '@keepgraph/core/policy';
import { JOB_NAMES, type Job } from '@keepgraph/core/ports';
import {
  BullMqJobQueue,
  DEFAULT_PRODUCER_TIMEOUT_MS,
  bullJobId,
  installSchedules,
  redisLiveness,
  SCHEDULER_IDS,
  type JobData,
} from '../src/index.ts';
import { testRedis } from '../src/testing.ts';

const connection = { url: inject('redisUrl') };
// A prefix per test file run: parallel runs share one Redis without meeting.
const prefix = `kgtest-${randomBytes(4).toString('hex')}`;
const queue = new BullMqJobQueue({ connection, prefix });
afterAll(() => queue.close());

const rederive = (id: string): Job => ({
  name: 'rederive',
  id,
  ownerId: 'owner:1',
  payload: { deletedDerivedId: 'm-9', survivingSources: ['m-1', 'm-2'] },
});

describe('BullMqJobQueue', () => {
  it('puts each job in the queue of its name, once per id, whatever the id holds', async () => {
    const id = 'rederive:owner:1:m-9:2026-11-30T12:00:00.000Z';
    await queue.enqueue([rederive(id), rederive(id)]);
    await queue.enqueue([rederive(id), { ...rederive('reflect:owner:1'), name: 'reflect' }]);
    const q = queue.queues.get('rederive')!;
    expect(await q.getJobCounts('waiting', 'active', 'delayed')).toMatchObject({
      waiting: 1,
      active: 0,
      delayed: 0,
    });
    const job = await q.getJob(bullJobId(id));
    expect(job?.data).toEqual({ ownerId: 'owner:1', payload: rederive(id).payload });
    expect(job?.opts.attempts).toBe(5);
    expect(await queue.queues.get('reflect')!.getWaitingCount()).toBe(1);
    expect(await queue.queues.get('compact')!.getWaitingCount()).toBe(0);
  });

  it('hands a worker the job as enqueued', async () => {
    const seen: BullJob<JobData>[] = [];
    const done = new Promise<void>((resolve) => {
      const worker = new Worker<JobData>(
        'reflect',
        async (job) => {
          seen.push(job);
        },
        { connection, prefix },
      );
      worker.on('completed', () => void worker.close().then(resolve));
    });
    await done;
    expect(seen.map((j) => [j.name, j.id, j.data.ownerId])).toEqual([
      ['reflect', bullJobId('reflect:owner:1'), 'owner:1'],
    ]);
  });
});

describe('BullMqJobQueue.queueMetrics', () => {
  it('reports every queue, and counts and processing times once a worker has run', async () => {
    // Its own prefix (empty queues to start with) and one attempt, so a throw is a failure at once.
    const ownPrefix = `kgtest-${randomBytes(4).toString('hex')}`;
    const own = new BullMqJobQueue({ connection, prefix: ownPrefix, attempts: 1 });
    try {
      const before = await own.queueMetrics();
      expect(before.map((m) => m.name)).toEqual([...JOB_NAMES]);
      expect(before[0]).toEqual({
        name: JOB_NAMES[0],
        waiting: 0,
        active: 0,
        delayed: 0,
        failed: 0,
        completed: 0,
        durationMs: { p50: null, p95: null, samples: 0 },
      });

      const compact = (id: string, fail = false): Job => ({
        name: 'compact',
        id,
        ownerId: 'owner:1',
        payload: { fail },
      });
      await own.enqueue([compact('c-1'), compact('c-2'), compact('c-3'), compact('c-4', true)]);
      expect((await own.queueMetrics()).find((m) => m.name === 'compact')).toMatchObject({
        waiting: 4,
        completed: 0,
      });

      let settled = 0;
      const worker = new Worker<JobData>(
        'compact',
        async (job) => {
          await sleep(20);
          if (job.data.payload.fail) throw new Error('told to fail');
        },
        { connection, prefix: ownPrefix },
      );
      const allSettled = new Promise<void>((resolve) => {
        const count = () => ++settled === 4 && resolve();
        worker.on('completed', count);
        worker.on('failed', count);
      });
      await allSettled;
      await worker.close();

      const m = (await own.queueMetrics()).find((x) => x.name === 'compact')!;
      expect(m).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 1, completed: 3 });
      expect(m.durationMs.samples).toBe(3);
      expect(m.durationMs.p50).toBeGreaterThanOrEqual(15);
      expect(m.durationMs.p95).toBeGreaterThanOrEqual(m.durationMs.p50!);
    } finally {
      await Promise.all([...own.queues.values()].map((q) => q.obliterate({ force: true })));
      await own.close();
    }
  });
});

describe('installSchedules', () => {
  it('installs the expiry sweep (one at a time), reflection and compaction as job schedulers at the policy periods, idempotently', async () => {
    const p = `kgsched-${randomBytes(4).toString('hex')}`;
    const q = new BullMqJobQueue({ connection, prefix: p });
    try {
      await installSchedules(q, defaultPolicy());
      await installSchedules(q, defaultPolicy(), { expiryEveryMs: 2000 });
      const every = async (name: 'expire' | 'reflect' | 'compact') => {
        const s = await q.queues.get(name)!.getJobSchedulers();
        expect(s).toHaveLength(1);
        // The job the registry's schedule builds, marked as the scheduler's.
        const payload =
          name === 'reflect' ? { reason: 'schedule', scheduled: true } : { scheduled: true };
        expect(s[0]!.template?.data).toEqual({ ownerId: '*', payload });
        // The scheduler ids deployed installations already hold.
        expect(s[0]!.key).toBe(SCHEDULER_IDS[name]);
        return Number(s[0]!.every);
      };
      expect(await every('expire')).toBe(2000);
      expect(await every('reflect')).toBe(3600_000);
      expect(await every('compact')).toBe(3600_000);
      expect(await q.queues.get('expire')!.getGlobalConcurrency()).toBe(1);
    } finally {
      await Promise.all([...q.queues.values()].map((x) => x.obliterate({ force: true })));
      await q.close();
    }
  });
});

/** How long `work` took to settle, and how. */
async function timed(work: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const t0 = Date.now();
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  return { ms: Date.now() - t0, error };
}

describe('BullMqJobQueue without Redis', () => {
  // Nothing listens on port 1: every connection attempt is refused.
  const nowhere = { host: '127.0.0.1', port: 1 };

  it('rejects an enqueue within its default timeout instead of waiting, and closes at once', async () => {
    const q = new BullMqJobQueue({ connection: nowhere, prefix });
    const r = await timed(q.enqueue([rederive('rederive:nowhere')]));
    expect(r.error).toBeInstanceOf(Error);
    expect(r.error).toMatchObject({ code: 'queue_unavailable' });
    expect(r.ms).toBeGreaterThanOrEqual(DEFAULT_PRODUCER_TIMEOUT_MS - 100);
    expect(r.ms).toBeLessThan(DEFAULT_PRODUCER_TIMEOUT_MS + 2000);
    const c = await timed(q.close());
    expect(c.error).toBeNull();
    expect(c.ms).toBeLessThan(1000);
  });

  it('bounds the metrics and the schedules by the same timeout', async () => {
    const q = new BullMqJobQueue({ connection: nowhere, prefix, timeoutMs: 300 });
    try {
      const [metrics, schedules] = await Promise.all([
        timed(q.queueMetrics()),
        timed(installSchedules(q, defaultPolicy())),
      ]);
      for (const r of [metrics, schedules]) {
        expect(r.error).toBeInstanceOf(Error);
        expect(r.ms).toBeLessThan(2000);
      }
      expect(metrics.error).toMatchObject({ code: 'queue_unavailable' });
    } finally {
      await q.close();
    }
  });

  it('enqueues on a reachable Redis straight after construction (BullMQ holds the first command until connected)', async () => {
    const q = new BullMqJobQueue({ connection, prefix });
    try {
      // No wait between construction and the first command: with the offline
      // queue off, a command sent before the connection is ready would fail.
      await q.enqueue([rederive('rederive:first-command')]);
      expect(
        await q.queues.get('rederive')!.getJob(bullJobId('rederive:first-command')),
      ).toBeDefined();
    } finally {
      await q.close();
    }
  });
});

// "At once" is told apart from waiting out the producer timeout (5 s), with
// room for a busy host: a refused call took 1,003 ms once in a CI run.
const AT_ONCE_MS = DEFAULT_PRODUCER_TIMEOUT_MS / 2;

describe('BullMqJobQueue when its Redis stops', () => {
  const server = testRedis();
  const port = server.port;
  const startRedis = () => server.start();
  const stopRedis = () => server.stop('SIGKILL');
  afterAll(() => stopRedis());

  it('fails each enqueue at once while Redis is down, enqueues again once it is back, and closes without it', async () => {
    await startRedis();
    const q = new BullMqJobQueue({ connection: { host: '127.0.0.1', port }, prefix });
    try {
      await q.enqueue([rederive('rederive:before')]);
      // Every queue connected first: one that never was waits for its first
      // connection up to the timeout (BullMQ holds its commands till then).
      await q.ready();
      await stopRedis();
      // At once, not after the timeout: the command is refused, not held for the reconnect.
      const down = await timed(q.enqueue([rederive('rederive:during')]));
      expect(down.error).toBeInstanceOf(Error);
      expect(down.ms).toBeLessThan(AT_ONCE_MS);
      // Coded, for the HTTP routes that read the queues (503 queue_unavailable).
      expect(down.error).toMatchObject({ code: 'queue_unavailable' });
      const metrics = await timed(q.queueMetrics());
      expect(metrics.error).toMatchObject({ code: 'queue_unavailable' });
      expect(metrics.ms).toBeLessThan(AT_ONCE_MS);

      await startRedis();
      // ioredis reconnects on its own (BullMQ's retry strategy: 1 s, then longer).
      const deadline = Date.now() + 30_000;
      for (;;) {
        const r = await timed(q.enqueue([rederive('rederive:after')]));
        if (r.error === null) break;
        if (Date.now() > deadline) throw r.error;
        await sleep(200);
      }
      // Read back through the queue's own connection, which may still be
      // reconnecting when the enqueue's went through: a refused read is tried again.
      let job: unknown;
      for (;;) {
        try {
          job = await q.queues.get('rederive')!.getJob(bullJobId('rederive:after'));
          break;
        } catch (e) {
          if (Date.now() > deadline) throw e;
          await sleep(200);
        }
      }
      expect(job).toBeDefined();

      await stopRedis();
      const closed = await timed(q.close());
      expect(closed.error).toBeNull();
      expect(closed.ms).toBeLessThan(AT_ONCE_MS);
      // Dropped, not left reconnecting for ever (which would keep the process
      // alive): no attempt in the next 2.5 s, when ioredis retries every 1-2 s.
      let attempts = 0;
      for (const bq of q.queues.values()) (await bq.client).on('reconnecting', () => attempts++);
      await sleep(2500);
      expect(attempts).toBe(0);
    } finally {
      await q.close();
    }
  }, 60_000);

  it('serves every queue once Redis is back, though it went the moment their connections were ready', async () => {
    await startRedis();
    // Redis goes before the first command a ready connection sends. That was
    // BullMQ's version check (INFO), and a queue whose check failed was left
    // with a rejected connection for good, however soon Redis came back.
    // (ioredis's own ready check also sends INFO, before 'ready': left alone.)
    const proto = Redis.prototype as unknown as { info: (...a: unknown[]) => Promise<unknown> };
    const info = proto.info;
    let killed: Promise<void> | undefined;
    proto.info = function (this: Redis, ...args: unknown[]) {
      if (this.status !== 'ready') return info.apply(this, args);
      killed ??= stopRedis();
      return killed.then(() => info.apply(this, args));
    };
    const q = new BullMqJobQueue({ connection: { host: '127.0.0.1', port }, prefix });
    try {
      // Every queue's connection reaches 'ready' (or Redis is already gone).
      await sleep(1000);
      proto.info = info;
      // Stopped by the patch, or (nothing sent INFO once ready) stopped here.
      await (killed ?? stopRedis());
      await startRedis();
      const deadline = Date.now() + 30_000;
      for (;;) {
        const r = await timed(q.queueMetrics());
        if (r.error === null) break;
        if (Date.now() > deadline) throw r.error;
        await sleep(200);
      }
      await q.enqueue([rederive('rederive:restarted')]);
      expect(await q.queues.get('rederive')!.getJob(bullJobId('rederive:restarted'))).toBeDefined();
    } finally {
      proto.info = info;
      await q.close();
      await stopRedis();
    }
  }, 60_000);

  it('tells Redis away, back, and back long enough to have settled', async () => {
    await startRedis();
    const q = new BullMqJobQueue({ connection: { host: '127.0.0.1', port }, prefix });
    try {
      await q.ready();
      const up = redisLiveness([...q.queues.values()]);
      await sleep(300);
      expect(up()).toBe(true);
      expect(up(200)).toBe(true);
      await stopRedis();
      expect(up()).toBe(false);
      await startRedis();
      // ioredis reconnects on its own, within BullMQ's retry delay.
      for (const deadline = Date.now() + 30_000; !up() && Date.now() < deadline;) await sleep(50);
      // Back, but it was away a moment ago.
      expect(up()).toBe(true);
      expect(up(60_000)).toBe(false);
      await sleep(300);
      expect(up(200)).toBe(true);
    } finally {
      await q.close();
    }
  }, 60_000);
});
