// The background scenarios' harness: the same engine wiring in two modes.
// Embedded: a SQLite file store and the in-process runner. Server: Neo4j and
// BullMQ workers over a real Redis (a random key prefix per fixture), fed by
// the outbox relay. Both use a manual clock, and `settle()` waits until the
// outbox is empty and no job is waiting, running or due for a retry.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createEngine, type Caller, type Engine } from '@keepgraph/core';
import { expireJob, scheduledJobs, startInProcessBackground } from '@keepgraph/core/jobs';
import { defaultPolicy, type Policy } from '@keepgraph/core/policy';
import {
  ManualClock,
  type Clock,
  type Embedder,
  type Extractor,
  type MemoryStore,
} from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { redisConnection } from '@keepgraph/runtime';
import { startWorkerProcess } from '@keepgraph/workers';
import { neo4jAuth, neo4jUri, redisUrl } from '../services.ts';

export const user: Caller = { role: 'user', owners: 'all', principal: 'user:test' };
export const operator: Caller = { role: 'operator', owners: 'all', principal: 'op:test' };

export interface BackgroundFixture {
  engine: Engine;
  clock: ManualClock;
  store: MemoryStore;
  /** Relay the outbox and run jobs until nothing is left. */
  settle(): Promise<void>;
  /** One expiry sweep, as the schedule would enqueue it. */
  tickExpiry(): Promise<void>;
  /** The scheduled reflection and compaction of every owner, now. */
  tickConsolidation(): Promise<void>;
  owner(): string;
  close(): Promise<void>;
}

export interface FixtureOptions {
  policy?: (p: Policy) => Policy;
  extractor?: Extractor;
  start?: string;
}

export interface BackgroundMode {
  name: string;
  fixture(opts?: FixtureOptions): Promise<BackgroundFixture>;
}

/**
 * For a test file that opens fixtures or servers in its tests: registers an
 * afterEach that closes, newest first, what each test handed to the returned
 * function (which passes it through), so that nothing outlives its test.
 */
export function closeAfterEach(): <T extends { close(): Promise<void> }>(opened: T) => T {
  let open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    const closing = open.reverse();
    open = [];
    for (const c of closing) await c.close();
  });
  return (opened) => {
    open.push(opened);
    return opened;
  };
}

/** Run what is pending, then the scheduled consolidation of every owner, then what that set off. */
export async function settleConsolidation(f: BackgroundFixture): Promise<void> {
  await f.settle();
  await f.tickConsolidation();
  await f.settle();
}

let embedder: Promise<Embedder> | null = null;
export const realEmbedder = () => (embedder ??= createTransformersEmbedder());

/**
 * An engine over `store` (initialised here): the real model unless another
 * embedder is given, the default policy (tweaked by `policy`), the clock given.
 */
export async function engineOver(
  store: MemoryStore,
  opts: { clock: Clock; policy?: (p: Policy) => Policy; embedder?: Embedder },
): Promise<Engine> {
  const embedder = opts.embedder ?? (await realEmbedder());
  await store.init({ dimensions: embedder.dimensions });
  const policy = opts.policy ? opts.policy(defaultPolicy()) : defaultPolicy();
  return createEngine({ store, embedder, policy, clock: opts.clock });
}

const manualClock = (opts: FixtureOptions) =>
  new ManualClock(opts.start ?? new Date().toISOString());

const owner = () => `owner-${randomUUID()}`;

export const embeddedMode: BackgroundMode = {
  name: 'embedded (SQLite, in-process runner)',
  async fixture(opts = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'kg-background-'));
    const store = createSqliteStore({ path: join(dir, 'kg.db') });
    const clock = manualClock(opts);
    const engine = await engineOver(store, { ...opts, clock });
    const bg = startInProcessBackground(engine, {
      schedules: false,
      backoffMs: 20,
      ...(opts.extractor ? { extractor: opts.extractor } : {}),
    });
    return {
      engine,
      clock,
      store,
      settle: () => bg.settle(),
      tickExpiry: () => bg.tickExpiry(),
      tickConsolidation: () => bg.tickConsolidation(),
      owner,
      async close() {
        await bg.stop();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** Until every queue is empty of waiting, active and delayed jobs. */
export async function bullIdle(
  queues: Iterable<{ getJobCounts(...t: string[]): Promise<Record<string, number>> }>,
) {
  for (;;) {
    let busy = 0;
    for (const q of queues) {
      const c = await q.getJobCounts(
        'waiting',
        'active',
        'delayed',
        'prioritized',
        'waiting-children',
      );
      busy += Object.values(c).reduce((a, b) => a + b, 0);
    }
    if (busy === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const serverMode: BackgroundMode = {
  name: 'server (Neo4j, BullMQ workers)',
  async fixture(opts = {}) {
    const store = createNeo4jStore({
      uri: neo4jUri(),
      ...neo4jAuth(),
    });
    const clock = manualClock(opts);
    const engine = await engineOver(store, { ...opts, clock });
    const wp = await startWorkerProcess({
      engine,
      connection: redisConnection(redisUrl()),
      prefix: `kgtest-${randomUUID().slice(0, 8)}`,
      schedules: false,
      // Only settle() relays. Fixtures share one Neo4j, so one outbox: a
      // fixture's relay on a timer took jobs of another fixture's owners
      // into its own queues (the novelty test's episode was reflected by
      // nobody, about one run in six).
      relayIntervalMs: 24 * 3600 * 1000,
      ...(opts.extractor ? { extractor: opts.extractor } : {}),
    });
    const queues = [...wp.queue.queues.values()];
    return {
      engine,
      clock,
      store,
      async settle() {
        for (;;) {
          const moved = await wp.relay.flush();
          await bullIdle(queues);
          if (moved === 0 && (await store.outboxPending(1000)).length === 0) return;
        }
      },
      tickExpiry: () => wp.queue.enqueue([expireJob(clock.now().toISOString())]),
      tickConsolidation: () => wp.queue.enqueue(scheduledJobs(clock.now().toISOString())),
      owner,
      async close() {
        await wp.close();
        await Promise.all(queues.map((q) => q.obliterate({ force: true }).catch(() => {})));
        await store.close();
      },
    };
  },
};
