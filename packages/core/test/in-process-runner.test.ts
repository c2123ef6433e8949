// The in-process runner's own behaviour, with small processors (the real
// processors run in test/background against real stores).
import { describe, expect, it } from 'vitest';
import { InProcessJobRunner, type Processors } from '../src/jobs/index.ts';
import { JOB_NAMES, type Job } from '../src/ports/index.ts';

function processors(run: (job: Job) => Promise<void>): Processors {
  return Object.fromEntries(
    JOB_NAMES.map((n) => [n, async (job: Job) => (await run(job), {})]),
  ) as unknown as Processors;
}

const job = (id: string, name: Job['name'] = 'reflect'): Job => ({
  name,
  id,
  ownerId: 'o',
  payload: {},
});

describe('InProcessJobRunner', () => {
  it('runs a job id once however often it is enqueued', async () => {
    const seen: string[] = [];
    const r = new InProcessJobRunner(processors(async (j) => void seen.push(j.id)));
    await r.enqueue([job('a'), job('a'), job('b')]);
    await r.enqueue([job('a')]);
    await r.idle();
    expect(seen).toEqual(['a', 'b']);
    const m = (await r.queueMetrics()).find((q) => q.name === 'reflect')!;
    expect(m).toMatchObject({ completed: 2, failed: 0, waiting: 0, active: 0 });
    expect(m.durationMs.samples).toBe(2);
  });

  it('retries with backoff until the job succeeds, or leaves it failed after the last attempt', async () => {
    const tries = new Map<string, number>();
    const r = new InProcessJobRunner(
      processors(async (j) => {
        const n = (tries.get(j.id) ?? 0) + 1;
        tries.set(j.id, n);
        if (j.id === 'never' || n < 3) throw new Error(`try ${n}`);
      }),
      { attempts: 4, backoffMs: 5 },
    );
    await r.enqueue([job('flaky'), job('never', 'compact')]);
    await r.idle();
    expect(tries.get('flaky')).toBe(3);
    expect(tries.get('never')).toBe(4);
    const byName = Object.fromEntries((await r.queueMetrics()).map((q) => [q.name, q]));
    expect(byName.reflect).toMatchObject({ completed: 1, failed: 0 });
    expect(byName.compact).toMatchObject({ completed: 0, failed: 1 });
  });

  it('runs one job at a time per queue, queues side by side', async () => {
    let running = 0;
    let most = 0;
    const r = new InProcessJobRunner(
      processors(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((ok) => setTimeout(ok, 5));
        running--;
      }),
    );
    await r.enqueue([job('1'), job('2'), job('3'), job('4', 'compact'), job('5', 'expire')]);
    await r.idle();
    expect(most).toBe(3);
  });

  it('closes gracefully: waits for the running job, drops waiting ones, refuses new ones', async () => {
    const done: string[] = [];
    const r = new InProcessJobRunner(
      processors(async (j) => {
        await new Promise((ok) => setTimeout(ok, 20));
        done.push(j.id);
      }),
    );
    await r.enqueue([job('running'), job('waiting')]);
    await r.close();
    expect(done).toEqual(['running']);
    await expect(r.enqueue([job('late')])).rejects.toThrow(/closed/);
  });

  it('puts a retry back in line: it never runs beside the next job of its queue', async () => {
    let running = 0;
    let most = 0;
    let failedOnce = false;
    const r = new InProcessJobRunner(
      processors(async (j) => {
        running++;
        most = Math.max(most, running);
        await new Promise((ok) => setTimeout(ok, 15));
        running--;
        if (j.id === 'a' && !failedOnce) {
          failedOnce = true;
          throw new Error('once');
        }
      }),
      { backoffMs: 1 },
    );
    await r.enqueue([job('a'), job('b'), job('c')]);
    await r.idle();
    expect(failedOnce).toBe(true);
    expect(most).toBe(1);
  });

  it('reports each job done once, completed or finally failed, before it counts as finished', async () => {
    const done: string[] = [];
    const r = new InProcessJobRunner(
      processors(async (j) => {
        if (j.id === 'bad') throw new Error('no');
      }),
      {
        attempts: 2,
        backoffMs: 1,
        onDone: async (j) => {
          await new Promise((ok) => setTimeout(ok, 5));
          done.push(j.id);
        },
      },
    );
    await r.enqueue([job('ok'), job('bad', 'compact')]);
    await r.idle();
    expect(done.sort()).toEqual(['bad', 'ok']);
  });
});
