// Dependencies failing (issue 18, item 6): `keepgraph start` as shipped,
// under the load of four clients (writes, lists, recalls, key-value puts,
// session appends, forgets) and a /healthz probe, while what it depends on
// goes away and comes back, the server process never restarted:
// - SQLite busy: another process holds the write lock (BEGIN EXCLUSIVE)
//   for 12 s, more than twice the store's 5 s busy timeout;
// - SQLite out of disk: the data directory is on a 64 MB tmpfs of its own,
//   filled to the last byte for 10 s (a real ENOSPC: SQLITE_FULL; skipped,
//   saying so, where the test may not mount a tmpfs);
// - Neo4j stopped: a Neo4j of the test's own (port 17835) stopped cleanly,
//   left down 8 s, then started again over the same data;
// - Redis stopped, in the server mode (Neo4j, Redis, `keepgraph worker`):
//   a Redis of the test's own (port 16435, append-only file) stopped for
//   10 s; redis-outage.test.ts holds the jobs to exactly-once, this holds
//   the HTTP answers and the recovery of both processes.
// For each it holds that:
// - every answer is a 2xx or a 503 carrying the case's code (no other 5xx,
//   no other refusal, no request left 60 s without an answer); while the
//   dependency is away every request is answered within 15 s (8 s on
//   Neo4j), /healthz within 2 s (no wait holds the event loop);
// - nothing is half-written (outage/whole.ts): acknowledged writes whole,
//   refused ones absent, forgets all or nothing, the audit chain intact;
// - the server serves again once the dependency is back, by itself.
// Prints the figures of each case: requests sent during the outage, their
// statuses, 5xx other than 503, half-written records found, time to recover
// (KG_OUTAGE_LOG=1 prints each server's log as well).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { testRedis } from '@keepgraph/workers/testing';
import { operatorCall, startKeepGraph, type KeepGraphProcess } from '../e2e/keepgraph-process.ts';
import {
  fillDisk,
  holdWriteLock,
  mountTmpfs,
  ownNeo4j,
  startWorker,
} from './outage/dependencies.ts';
import {
  OutageLoad,
  extraRouteName,
  histogram,
  outageOwners,
  spelt,
  type Answer,
  type ExtraRoute,
} from './outage/load.ts';
import { checkWhole, halfWritten } from './outage/whole.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

const CLIENTS = 4;
/** Memories written per owner before the load, for its forgets to take. */
const TO_FORGET = 24;
/** The load runs this long before the dependency goes. */
const WARM_MS = 2_000;
/**
 * An answer to a request sent while the dependency is away comes within
 * this. SQLite waits out a lock 5 s per store call, and a write may make
 * two that wait (the write, then releasing its idempotency key).
 */
const MAX_ANSWER_MS = 15_000;
/**
 * The Neo4j store waits 5 s for the database from an operation's start,
 * and not at all once an operation has given up, until one succeeds: a
 * request waits about 5 s whatever number of store calls it makes. (It
 * was 5 s per call, each retried past it: 9-12 s for a write.)
 */
const MAX_NEO4J_ANSWER_MS = 8_000;
/** /healthz answers within this while the dependency is away: the event loop is never held. */
const MAX_HEALTHZ_MS = 2_000;
/** How long the server may take to serve again once the dependency is back. */
const MAX_RECOVER_MS = 30_000;
const NEO4J_PORT = 17835;
const REDIS_PORT = 16435;

interface Outage {
  kg: KeepGraphProcess;
  store: 'sqlite' | 'neo4j';
  label: string;
  kind: 'fact' | 'episode';
  /** The codes a 503 may carry in this case. */
  codes: readonly string[];
  extra?: readonly ExtraRoute[];
  takeAway(): Promise<void>;
  /**
   * How long the dependency stays away once taken, at least: longer until
   * the load has tried it (triedWhileAway). Giving it back may take longer
   * still (a Neo4j start).
   */
  awayMs: number;
  giveBack(): Promise<void>;
  /** The route whose first success after the dependency is back marks the recovery. */
  recoveredBy: string;
  /** The slowest answer allowed to a request sent while away (default MAX_ANSWER_MS). */
  maxAnswerMs?: number;
}

/** The slowest answer of each route among `answers`, in ms. */
function slowestByRoute(answers: readonly Answer[]): Record<string, number> {
  const slowest: Record<string, number> = {};
  for (const a of answers) slowest[a.route] = Math.max(slowest[a.route] ?? 0, a.doneAt - a.sentAt);
  return slowest;
}

/** Resolves once each of `routes` has an answer to a request sent since `from`, or at `deadline`. */
async function triedWhileAway(
  answers: readonly Answer[],
  routes: readonly string[],
  from: number,
  deadline: number,
): Promise<void> {
  const tried = () => routes.every((r) => answers.some((a) => a.route === r && a.sentAt >= from));
  while (!tried() && Date.now() < deadline) await sleep(100);
}

interface Figures {
  case: string;
  outageMs: number;
  sentDuringOutage: number;
  statusesDuringOutage: Record<string, number>;
  byRouteDuringOutage: Record<string, Record<string, number>>;
  /** Every answer sent after the dependency was back, by route. */
  byRouteAfterBack: Record<string, Record<string, number>>;
  codesDuringOutage: Record<string, number>;
  other5xx: number;
  /** 503s without one of the case's codes, 4xx, requests without an answer. */
  unexpected: number;
  /** Of the requests sent while the dependency was away for certain. */
  slowestAnswerWhileAwayMs: number;
  /** The same, by route: which requests wait on the dependency. */
  slowestWhileAwayByRoute: Record<string, number>;
  /** Of all (after a restart Neo4j plans its queries anew: the first ones take seconds). */
  slowestAnswerMs: number;
  slowestHealthzWhileAwayMs: number;
  writesAcknowledgedDuringOutage: number;
  writesRefusedDuringOutage: number;
  halfWritten: number;
  forgottenUnacknowledged: number;
  recoverMs: number;
}

/** The first answer of `route` that succeeded at or after `t`, waiting up to MAX_RECOVER_MS. */
async function firstSuccess(answers: readonly Answer[], route: string, t: number): Promise<number> {
  const deadline = Date.now() + MAX_RECOVER_MS + 5_000;
  for (;;) {
    const ok = answers.filter(
      (a) => a.route === route && a.status >= 200 && a.status < 300 && a.doneAt >= t,
    );
    if (ok.length > 0) return Math.min(...ok.map((a) => a.doneAt));
    if (Date.now() > deadline) return Number.POSITIVE_INFINITY;
    await sleep(50);
  }
}

/** Seed, load, take the dependency away and back, check; the figures, printed. */
async function runOutage(o: Outage): Promise<Figures> {
  const owners = outageOwners(o.label.replace(/\W+/g, '-'), CLIENTS);
  const toForget = new Map<string, string[]>();
  await Promise.all(
    owners.map(async (owner) => {
      const ids: string[] = [];
      for (let i = 0; i < TO_FORGET; i++) {
        const r: any = await operatorCall(o.kg, 'POST', `/owners/${owner}/memories`, {
          kind: 'fact',
          text: `Before the ${o.label} outage, keepsake ${spelt(i)} was put in the cellar`,
          origin: { sessionId: 'outage-seed' },
        });
        ids.push(r.memory.id);
      }
      toForget.set(owner, ids);
    }),
  );
  const load = new OutageLoad({
    kg: o.kg,
    owners,
    kind: o.kind,
    toForget,
    label: `During the ${o.label} case`,
    ...(o.extra && { extra: o.extra }),
  });
  load.start();
  // The outage: from the moment the dependency starts going until it is
  // back (a restarted Neo4j accepts Bolt). Away for certain: from the
  // moment it has gone until it starts coming back.
  let downAt = 0;
  let awayFrom = 0;
  let awayUntil = 0;
  let backAt = 0;
  let recoveredAt = Number.POSITIVE_INFINITY;
  try {
    await sleep(WARM_MS);
    downAt = Date.now();
    await o.takeAway();
    awayFrom = Date.now();
    await sleep(o.awayMs);
    // On a busy machine a client's round can outlast the outage: away
    // longer, until a write and each extra route have been answered to a
    // request sent while away (at most three times as long).
    await triedWhileAway(
      load.answers,
      ['POST /owners/:o/memories', ...(o.extra ?? []).map(extraRouteName)],
      awayFrom,
      awayFrom + 3 * o.awayMs,
    );
    awayUntil = Date.now();
    await o.giveBack();
    backAt = Date.now();
    recoveredAt = await firstSuccess(load.answers, o.recoveredBy, backAt);
    // A little more load on the recovered server.
    await sleep(2_000);
  } finally {
    await load.stop();
  }

  const during = load.answers.filter((a) => a.sentAt >= downAt && a.sentAt <= backAt);
  const away = load.answers.filter((a) => a.sentAt >= awayFrom && a.sentAt <= awayUntil);
  const byRoute: Record<string, Record<string, number>> = {};
  for (const route of new Set(during.map((a) => a.route)))
    byRoute[route] = histogram(during.filter((a) => a.route === route));
  const after = load.answers.filter((a) => a.sentAt > backAt);
  const afterByRoute: Record<string, Record<string, number>> = {};
  for (const route of new Set(after.map((a) => a.route)))
    afterByRoute[route] = histogram(after.filter((a) => a.route === route));
  const unexpected = load.answers.filter(
    (a) =>
      a.status === 0 ||
      (a.status >= 400 && a.status < 500) ||
      (a.status === 503 && !o.codes.includes(a.code ?? '')),
  );
  const other5xx = load.answers.filter((a) => a.status >= 500 && a.status !== 503);
  const whole = await checkWhole(o.kg, o.store, owners, load.writes, load.forgets);
  const writesDuring = during.filter((a) => a.route === 'POST /owners/:o/memories');
  const codes: Record<string, number> = {};
  for (const a of during) if (a.code) codes[a.code] = (codes[a.code] ?? 0) + 1;
  const figures: Figures = {
    case: o.label,
    outageMs: backAt - downAt,
    sentDuringOutage: during.length,
    statusesDuringOutage: histogram(during),
    byRouteDuringOutage: byRoute,
    byRouteAfterBack: afterByRoute,
    codesDuringOutage: codes,
    other5xx: other5xx.length,
    unexpected: unexpected.length,
    slowestAnswerWhileAwayMs: Math.max(0, ...away.map((a) => a.doneAt - a.sentAt)),
    slowestWhileAwayByRoute: slowestByRoute(away),
    slowestAnswerMs: Math.max(...load.answers.map((a) => a.doneAt - a.sentAt)),
    slowestHealthzWhileAwayMs: Math.max(
      0,
      ...away.filter((a) => a.route === 'GET /healthz').map((a) => a.doneAt - a.sentAt),
    ),
    writesAcknowledgedDuringOutage: writesDuring.filter((a) => a.status === 201).length,
    writesRefusedDuringOutage: writesDuring.filter((a) => a.status === 503).length,
    halfWritten: halfWritten(whole),
    forgottenUnacknowledged: whole.forgottenUnacknowledged,
    recoverMs: recoveredAt - backAt,
  };
  console.log(`dependencies failing (${o.label}): ${JSON.stringify(figures)}`);
  if (process.env.KG_OUTAGE_LOG) console.log(o.kg.log());
  // What the server logged of its other faults, so a failure here says why.
  if (other5xx.length > 0)
    console.log(
      `dependencies failing (${o.label}), the server's faults:\n${o.kg
        .log()
        .split('\n')
        .filter(
          (l) => l.includes('"level":50') && !o.codes.some((c) => l.includes(`"code":"${c}"`)),
        )
        .slice(-20)
        .join('\n')}`,
    );

  expect(other5xx, 'answers 5xx other than 503').toEqual([]);
  // Each 503 tells the client when to come back.
  expect(
    load.answers.filter((a) => a.status === 503 && !(Number(a.retryAfter) > 0)),
    '503 answers without a Retry-After',
  ).toEqual([]);
  expect(unexpected, 'answers neither 2xx nor a 503 with the case’s code').toEqual([]);
  expect(whole).toMatchObject({
    partial: [],
    lost: [],
    keptUnacknowledged: [],
    tracedAfterForget: [],
    halfForgotten: [],
  });
  // The outage was real: the server did refuse with the case's code.
  expect(during.filter((a) => a.status === 503).length).toBeGreaterThan(0);
  expect(figures.slowestAnswerWhileAwayMs).toBeLessThan(o.maxAnswerMs ?? MAX_ANSWER_MS);
  expect(away.filter((a) => a.route === 'GET /healthz').length).toBeGreaterThan(0);
  expect(figures.slowestHealthzWhileAwayMs).toBeLessThan(MAX_HEALTHZ_MS);
  expect(figures.recoverMs).toBeLessThan(MAX_RECOVER_MS);
  expect((await operatorCall(o.kg, 'GET', '/audit/verify')).ok).toBe(true);
  return figures;
}

type Cleanup = () => Promise<void> | void;
/** What a case started (its server, worker, Redis, disk), undone after it. */
const cleanups: Cleanup[] = [];
/** The Neo4j the last two cases share, stopped after them. */
const lastCleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  for (const c of lastCleanups.splice(0).reverse()) await c();
});

async function tempDir(name: string, list = cleanups): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `keepgraph-${name}-`));
  list.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function start(data: string, env: Record<string, string>): Promise<KeepGraphProcess> {
  const kg = await startKeepGraph(data, { KEEPGRAPH_RATE_LIMIT: '0', ...env });
  cleanups.push(() => kg.stop({ graceMs: 15_000 }));
  return kg;
}

let neo4j: Promise<ReturnType<typeof ownNeo4j>> | null = null;
/** The test's own Neo4j (the Neo4j and the Redis cases), stopped after them. */
function testNeo4j(): Promise<ReturnType<typeof ownNeo4j>> {
  return (neo4j ??= tempDir('neo4j', lastCleanups).then((dir) => {
    const db = ownNeo4j(NEO4J_PORT, join(dir, 'db'));
    lastCleanups.push(() => db.stop());
    return db;
  }));
}

describe('dependencies failing', () => {
  it('SQLite busy: another process holds the write lock past the busy timeout', async () => {
    const data = join(await tempDir('busy'), 'data');
    const kg = await start(data, { KEEPGRAPH_STORE: 'sqlite' });
    let lock: Awaited<ReturnType<typeof holdWriteLock>> | null = null;
    cleanups.push(() => lock?.release());
    await runOutage({
      kg,
      store: 'sqlite',
      label: 'sqlite busy',
      kind: 'fact',
      codes: ['store_unavailable'],
      takeAway: async () => {
        lock = await holdWriteLock(join(data, 'keepgraph.db'));
      },
      awayMs: 12_000,
      giveBack: () => lock!.release(),
      recoveredBy: 'POST /owners/:o/memories',
    });
  }, 300_000);

  it('SQLite out of disk: the data directory’s filesystem full to the last byte', async (ctx) => {
    const disk = join(await tempDir('disk-full'), 'disk');
    const mount = mountTmpfs(disk, 64);
    if (!mount) {
      console.log('dependencies failing (sqlite out of disk): skipped, cannot mount a tmpfs here');
      ctx.skip();
      return;
    }
    cleanups.push(() => mount.unmount());
    const kg = await start(join(disk, 'data'), { KEEPGRAPH_STORE: 'sqlite' });
    let full: ReturnType<typeof fillDisk> | null = null;
    await runOutage({
      kg,
      store: 'sqlite',
      label: 'sqlite out of disk',
      kind: 'fact',
      codes: ['store_full'],
      takeAway: async () => {
        full = fillDisk(disk);
        expect(full.bytesLeft()).toBe(0);
      },
      awayMs: 10_000,
      giveBack: async () => full!.free(),
      recoveredBy: 'POST /owners/:o/memories',
    });
  }, 300_000);

  it('Neo4j stopped, then started again over the same data', async () => {
    const db = await testNeo4j();
    await db.start({ keep: false });
    const kg = await start(join(await tempDir('neo4j-server'), 'data'), {
      KEEPGRAPH_STORE: 'neo4j',
      NEO4J_URI: db.uri,
    });
    await runOutage({
      kg,
      store: 'neo4j',
      label: 'neo4j stopped',
      kind: 'fact',
      codes: ['store_unavailable'],
      takeAway: () => db.stop(),
      awayMs: 8_000,
      giveBack: () => db.start({ keep: true }),
      recoveredBy: 'POST /owners/:o/memories',
      maxAnswerMs: MAX_NEO4J_ANSWER_MS,
    });
  }, 300_000);

  it('Redis stopped, in the server mode (Neo4j, Redis, keepgraph worker)', async () => {
    const db = await testNeo4j();
    await db.start({ keep: true });
    const dir = await tempDir('redis');
    const redis = testRedis({ port: REDIS_PORT, dir, appendOnly: true });
    await redis.start();
    cleanups.push(() => redis.stop());
    const env = {
      KEEPGRAPH_STORE: 'neo4j',
      NEO4J_URI: db.uri,
      KEEPGRAPH_REDIS_URL: redis.url,
      KEEPGRAPH_REDIS_PREFIX: `kgoutage-${randomBytes(4).toString('hex')}`,
    };
    const data = join(dir, 'data');
    const kg = await start(data, env);
    // The same data dir: the worker keys audit hashes with the same secret.
    const worker = await startWorker(data, env);
    cleanups.push(() => worker.stop());
    let upAt = 0;
    const f = await runOutage({
      kg,
      store: 'neo4j',
      label: 'redis stopped',
      // Episodes: each write records a reflection job in the outbox.
      kind: 'episode',
      codes: ['queue_unavailable'],
      extra: [
        { method: 'GET', path: '/v1/queues' },
        { method: 'GET', path: '/admin/queues/api/queues' },
        { method: 'GET', path: '/metrics' },
      ],
      takeAway: () => redis.stop('SIGTERM'),
      awayMs: 10_000,
      giveBack: async () => {
        await redis.start();
        upAt = Date.now();
      },
      recoveredBy: 'GET /v1/queues',
    });
    // Writes go on without Redis: their jobs wait in the outbox.
    expect(f.writesRefusedDuringOutage).toBe(0);
    expect(f.writesAcknowledgedDuringOutage).toBeGreaterThan(0);
    expect(f.codesDuringOutage['queue_unavailable'] ?? 0).toBeGreaterThan(0);

    // Both processes carry on by themselves: the relay empties the outbox
    // into Redis and the worker runs every job, none failed.
    const port = createNeo4jStore({ uri: db.uri });
    await port.init({ dimensions: 384 });
    let drainedMs = Number.POSITIVE_INFINITY;
    let queues: any[] = [];
    try {
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(500)) {
        queues = (await operatorCall(kg, 'GET', '/queues')).queues;
        // Delayed jobs stay: the worker's schedules (the expiry sweep...) are delayed jobs.
        const busy = queues.some((q) => q.waiting + q.active > 0);
        if (!busy && (await port.outboxPending(1)).length === 0) {
          drainedMs = Date.now() - upAt;
          break;
        }
      }
    } finally {
      await port.close();
    }
    console.log(
      `dependencies failing (redis stopped): outbox drained and every job run ${drainedMs} ms after Redis was back; ${JSON.stringify(
        Object.fromEntries(
          queues.map((q) => [
            q.name,
            { waiting: q.waiting, active: q.active, completed: q.completed, failed: q.failed },
          ]),
        ),
      )}`,
    );
    if (process.env.KG_OUTAGE_LOG) console.log(worker.log());
    expect(drainedMs).toBeLessThan(120_000);
    expect(queues.reduce((n, q) => n + q.completed, 0)).toBeGreaterThan(0);
    expect(queues.reduce((n, q) => n + q.failed, 0)).toBe(0);
  }, 420_000);
});
