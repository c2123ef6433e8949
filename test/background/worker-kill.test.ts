// A `keepgraph worker` process killed with SIGKILL in the middle of a
// reflection: BullMQ sees the job's lock lapse, a second worker runs it
// again, and the owner's graph ends equal to an uninterrupted run's (the
// same episodes, reflected and compacted by the in-process runner).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  InMemoryJobQueue,
  createEngine,
  defaultPolicy,
  startInProcessBackground,
  systemClock,
  type Engine,
  type MemoryInput,
  type MemoryStore,
} from '@keepgraph/core';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { bullIdle, realEmbedder, redisConnection, user } from './harness.ts';
import { graphSnapshot } from './graph-snapshot.ts';

const root = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const THINGS = ['finance', 'crypto', 'gambling', 'tobacco', 'defence', 'mining', 'fashion', 'retail'];
const GOALS = ['learn Rust', 'run a marathon', 'visit Japan', 'write a book', 'learn piano'];

/** 150 episodes: statements the extractor reads, and near-duplicates to compact. */
function workload(): MemoryInput[] {
  const texts: string[] = [];
  for (const [i, t] of THINGS.entries()) {
    texts.push(`I'd rather not work with ${t} clients after the project number ${i + 1}.`);
    texts.push(`Weekly review: the user strongly dislikes ${t} clients because of late payments.`);
  }
  for (const g of GOALS) texts.push(`I want to ${g} this year.`);
  for (const t of THINGS) texts.push(`I love working with ${t} startups.`);
  let n = 0;
  while (texts.length < 150) {
    n++;
    texts.push(`Booked flight ${n} for Alex: aisle seat, economy class, one checked bag.`);
  }
  return texts.map((text, i) => ({
    kind: 'episode',
    text,
    origin: { sessionId: `s-${i}`, turn: '1' },
  }));
}

async function engineOn(path: string): Promise<{ engine: Engine; store: MemoryStore }> {
  const embedder = await realEmbedder();
  const store = createSqliteStore({ path });
  await store.init({ dimensions: embedder.dimensions });
  const engine = createEngine({
    store,
    embedder,
    policy: defaultPolicy(),
    clock: systemClock,
    jobs: new InMemoryJobQueue(),
  });
  return { engine, store };
}

async function writeAll(engine: Engine, ownerId: string) {
  for (const input of workload()) await engine.remember(user, ownerId, input);
}

function startWorker(dataDir: string, prefix: string): { child: ChildProcess; ready: Promise<void>; log: () => string } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'packages/cli/src/main.ts', 'worker', '--data', dataDir, '--lock-ms', '2000', '--no-schedules'],
    {
      cwd: root,
      env: {
        ...process.env,
        KEEPGRAPH_STORE: 'sqlite',
        KEEPGRAPH_REDIS_URL: inject('redisUrl'),
        KEEPGRAPH_REDIS_PREFIX: prefix,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const ready = new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`worker did not start:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('KeepGraph worker running')) {
        clearTimeout(timer);
        ok();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => fail(new Error(`worker exited (${code ?? signal}):\n${out}`)));
  });
  ready.catch(() => {});
  return { child, ready, log: () => out };
}

describe('a worker killed with SIGKILL mid-reflection', () => {
  it('has its job retried by another worker, and the graph equals an uninterrupted run', async () => {
    // The uninterrupted run: same episodes, the in-process runner.
    const refDir = mkdtempSync(join(tmpdir(), 'kg-kill-ref-'));
    dirs.push(refDir);
    const ref = await engineOn(join(refDir, 'keepgraph.db'));
    const refOwner = `ref-${randomUUID()}`;
    await writeAll(ref.engine, refOwner);
    const bg = startInProcessBackground(ref.engine, { schedules: false, backoffMs: 20 });
    await bg.settle();
    await bg.stop();
    const expected = await graphSnapshot(ref.store, refOwner);
    await ref.store.close();
    expect(expected.memories.filter((m) => m.extractor === 'keepgraph-statements').length).toBeGreaterThan(10);
    expect(expected.memories.some((m) => m.extractor === 'keepgraph-compaction')).toBe(true);

    // The interrupted run: written first (the jobs wait in the outbox), then
    // a worker process picks them up and is killed while reflecting.
    const dataDir = mkdtempSync(join(tmpdir(), 'kg-kill-'));
    dirs.push(dataDir);
    const run = await engineOn(join(dataDir, 'keepgraph.db'));
    const owner = `killed-${randomUUID()}`;
    await writeAll(run.engine, owner);
    expect((await run.store.outboxPending(1000)).length).toBeGreaterThan(0);

    const prefix = `kgkill-${randomUUID().slice(0, 8)}`;
    const connection = redisConnection(inject('redisUrl'));
    const queues = ['reflect', 'compact', 'rederive', 'expire', 'reembed'].map(
      (name) => new Queue(name, { connection, prefix }),
    );
    const reflectQueue = queues[0]!;
    try {
      const first = startWorker(dataDir, prefix);
      await first.ready;
      let activeId: string | undefined;
      for (let i = 0; i < 3000 && !activeId; i++) {
        activeId = (await reflectQueue.getActive())[0]?.id;
        if (!activeId) await new Promise((r) => setTimeout(r, 10));
      }
      expect(activeId, `no reflection ever ran:\n${first.log()}`).toBeDefined();
      await new Promise((r) => setTimeout(r, 150));
      const killed = new Promise((r) => first.child.once('exit', r));
      first.child.kill('SIGKILL');
      await killed;
      const interrupted = await reflectQueue.getJob(activeId!);
      expect(interrupted?.finishedOn, 'the kill came after the job finished').toBeUndefined();

      const second = startWorker(dataDir, prefix);
      await second.ready;
      try {
        // Until the outbox is empty and every queue is drained.
        for (;;) {
          await bullIdle(queues);
          if ((await run.store.outboxPending(1)).length === 0) {
            await new Promise((r) => setTimeout(r, 500));
            if ((await run.store.outboxPending(1)).length === 0) {
              await bullIdle(queues);
              break;
            }
          }
        }
        const retried = await reflectQueue.getJob(activeId!);
        expect(retried?.finishedOn, second.log()).toBeDefined();
        expect(retried?.failedReason).toBeUndefined();
      } finally {
        const exited = new Promise((r) => second.child.once('exit', r));
        second.child.kill('SIGTERM');
        await exited;
      }
      expect(await graphSnapshot(run.store, owner)).toEqual(expected);
    } finally {
      await Promise.all(queues.map((q) => q.obliterate({ force: true }).catch(() => {})));
      await Promise.all(queues.map((q) => q.close()));
      await run.store.close();
    }
  }, 240_000);
});
