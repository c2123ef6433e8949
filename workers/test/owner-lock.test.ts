// Two worker processes' worth of BullMQ workers (two startWorkers on one
// Redis) never run two jobs of one owner at once, while different owners
// run side by side; a held owner's job waits without spending an attempt.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type Processors } from '@keepgraph/core/jobs';
import { JOB_NAMES, type Job } from '@keepgraph/core/ports';
import { BullMqJobQueue, startWorkers, type RunningWorkers } from '../src/index.ts';

const connection = { url: inject('redisUrl') };
const prefix = `kglock-${randomBytes(4).toString('hex')}`;
const queue = new BullMqJobQueue({ connection, prefix });
const running: RunningWorkers[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
  await Promise.all([...queue.queues.values()].map((q) => q.obliterate({ force: true })));
  await queue.close();
});

describe('per-owner exclusion across workers', () => {
  it('runs one job of an owner at a time, owners side by side, every job once', async () => {
    const active = new Map<string, number>();
    let mostPerOwner = 0;
    let mostOverall = 0;
    const done: string[] = [];
    const work = async (job: Job) => {
      const n = (active.get(job.ownerId) ?? 0) + 1;
      active.set(job.ownerId, n);
      mostPerOwner = Math.max(mostPerOwner, n);
      mostOverall = Math.max(
        mostOverall,
        [...active.values()].reduce((a, b) => a + b, 0),
      );
      await new Promise((ok) => setTimeout(ok, 60));
      active.set(job.ownerId, (active.get(job.ownerId) ?? 1) - 1);
      done.push(job.id);
      return {};
    };
    const processors = Object.fromEntries(JOB_NAMES.map((n) => [n, work])) as unknown as Processors;
    for (let i = 0; i < 2; i++)
      running.push(
        startWorkers({ connection, prefix, processors, concurrency: { reflect: 3, compact: 3 } }),
      );
    const jobs: Job[] = [];
    for (const owner of ['o1', 'o2'])
      for (let k = 0; k < 4; k++)
        jobs.push({
          name: k % 2 ? 'compact' : 'reflect',
          id: `${owner}-${k}`,
          ownerId: owner,
          payload: {},
        });
    await queue.enqueue(jobs);
    const deadline = Date.now() + 30_000;
    while (done.length < jobs.length && Date.now() < deadline)
      await new Promise((ok) => setTimeout(ok, 50));
    expect(done.sort()).toEqual(jobs.map((j) => j.id).sort());
    expect(mostPerOwner).toBe(1);
    expect(mostOverall).toBe(2);
    const failed = await queue.queues.get('reflect')!.getFailedCount();
    expect(failed).toBe(0);
  });
});
