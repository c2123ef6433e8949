// Job durations and queue depths in server mode, over BullMQ queues in a
// real Redis (started by the test setup) under a prefix of this run's own:
// a BullMQ worker here runs the jobs, as `keepgraph worker` would. Each job
// done for good is read from Redis once, completed or failed, with its
// processing time; jobs finished before the reader started are not; and
// GET /metrics shows them, with the depths per queue and state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { EmbeddedRuntime } from '@keepgraph/runtime';
import { buildApp } from '../src/app.ts';
import { FinishedJobsReader } from '../src/metrics/finished-jobs.ts';
import { parseSamples, promtoolCheck, sampleValue } from '../src/testing.ts';
import { scratchQueues, scratchRuntime, type ScratchQueues } from './helpers.ts';

let runtime: EmbeddedRuntime;
let queues: ScratchQueues;
let jobs: ScratchQueues['jobs'];
let worker: Worker;
let app: FastifyInstance;

/** Resolves once the worker has finished `n` more jobs (completed or failed for good). */
function finished(n: number): Promise<void> {
  return new Promise((done) => {
    let left = n;
    const one = () => {
      if (--left > 0) return;
      worker.off('completed', one);
      worker.off('failed', failedForGood);
      done();
    };
    const failedForGood = (
      job: { attemptsMade: number; opts: { attempts?: number } } | undefined,
    ) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) one();
    };
    worker.on('completed', one);
    worker.on('failed', failedForGood);
  });
}

const job = (id: string, payload: Record<string, unknown> = {}) => ({
  name: 'compact' as const,
  id,
  ownerId: 'owner-m',
  payload,
});

beforeAll(async () => {
  runtime = await scratchRuntime('keepgraph-metrics-redis-');
  queues = await scratchQueues('kgmetrics', 1);
  jobs = queues.jobs;
  const { connection, prefix } = queues;
  worker = new Worker(
    'compact',
    async (j) => {
      await new Promise((r) => setTimeout(r, 40));
      if ((j.data as { payload: { fail?: boolean } }).payload.fail) throw new Error('told to fail');
      return {};
    },
    { connection: { ...connection, maxRetriesPerRequest: null }, prefix },
  );
  await worker.waitUntilReady();
});

afterAll(async () => {
  await app?.close();
  await worker?.close();
  await queues?.close();
  await runtime?.close();
});

describe('job durations read from Redis', () => {
  it('reports each job done for good once, with its outcome and processing time, and none from before it started', async () => {
    const early = finished(1);
    await jobs.enqueue([job('before-the-reader')]);
    await early;
    const compact = jobs.queues.get('compact')!;
    const reader = new FinishedJobsReader([compact], Date.now() + 1);

    const two = finished(2);
    await jobs.enqueue([job('ok-1'), job('fails-1', { fail: true })]);
    await two;
    const first = await reader.read();
    expect(first.map((j) => [j.queue, j.outcome]).sort()).toEqual([
      ['compact', 'completed'],
      ['compact', 'failed'],
    ]);
    for (const j of first) expect(j.durationMs).toBeGreaterThanOrEqual(35);
    expect(await reader.read()).toEqual([]);

    const one = finished(1);
    await jobs.enqueue([job('ok-2')]);
    await one;
    expect((await reader.read()).map((j) => j.outcome)).toEqual(['completed']);
    expect(await reader.read()).toEqual([]);
  });
});

describe('GET /metrics in server mode', () => {
  it('shows job durations per queue and outcome, queue depths per state, and that jobs run on BullMQ', async () => {
    app = buildApp({
      engine: runtime.engine,
      auth: { trustedCaller: { role: 'operator', owners: 'all', principal: 'op' } },
      queues: queues.forApp,
    });
    const scrape = async () => {
      const r = await app.inject({ method: 'GET', url: '/metrics' });
      expect(r.statusCode).toBe(200);
      return r.body;
    };
    const before = parseSamples(await scrape());
    const count = { queue: 'compact', outcome: 'completed' };
    const done = finished(2);
    await jobs.enqueue([job('ok-3'), job('ok-4')]);
    await done;
    const text = await scrape();
    const after = parseSamples(text);
    expect(
      sampleValue(after, 'keepgraph_job_duration_seconds_count', count) -
        sampleValue(before, 'keepgraph_job_duration_seconds_count', count),
    ).toBe(2);
    expect(sampleValue(after, 'keepgraph_job_duration_seconds_sum', count)).toBeGreaterThan(0.07);
    expect(
      sampleValue(after, 'keepgraph_queue_jobs', { queue: 'compact', state: 'completed' }),
    ).toBe(5);
    expect(sampleValue(after, 'keepgraph_queue_jobs', { queue: 'compact', state: 'failed' })).toBe(
      1,
    );
    expect(sampleValue(after, 'keepgraph_metrics_source_up', { source: 'queues' })).toBe(1);
    expect(
      sampleValue(after, 'keepgraph_info', { version: '0.1.0', store: 'sqlite', jobs: 'bullmq' }),
    ).toBe(1);
    // Read once: a scrape with nothing new leaves the count where it was.
    const again = parseSamples(await scrape());
    expect(sampleValue(again, 'keepgraph_job_duration_seconds_count', count)).toBe(
      sampleValue(after, 'keepgraph_job_duration_seconds_count', count),
    );
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });
});
