// The JobQueue port on BullMQ against a real Redis (started by the test
// setup): jobs land in their own queue, the same id twice is one job, and a
// BullMQ worker receives what the engine enqueued.
import { randomBytes } from 'node:crypto';
import { Worker, type Job as BullJob } from 'bullmq';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Job } from '@keepgraph/core';
import { BullMqJobQueue, bullJobId, type JobData } from '../src/index.ts';

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
