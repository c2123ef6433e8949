// GET /metrics on a real `keepgraph start`, as an operator's Prometheus
// scrapes it: in the embedded mode (SQLite, jobs in-process) and in the
// server mode (Neo4j, jobs on BullMQ run by a `keepgraph worker`). Who may
// read it (no credential 401, a user key 403, the metrics token and the
// operator key 200); the counters move with writes, a refused secret, a
// recall, a forget and an expiry, and only by what was done; labels never
// carry what a caller sent; and every scrape passes `promtool check
// metrics` (Debian's prometheus package, installed by scripts/test.sh).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  notMovedByOne,
  parseSamples,
  promtoolCheck,
  sampleDelta,
  sampleValue,
  type Sample,
  type SampleKey,
} from '@keepgraph/server/testing';
import {
  startKeepGraph,
  v1Fetch,
  spawnWorker,
  type KeepGraphProcess,
  type WorkerProcess,
} from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { keepgraphEnv } from '../keepgraph-cli.ts';

const root = resolve(import.meta.dirname, '../..');
const DEFAULT_POLICY = resolve(root, 'packages/core/policy/default.yaml');
const secret = () => `the deploy token is ghp_${randomUUID().replaceAll('-', '')}Wxyz`;

async function scrapeWith(base: string, bearer: string | null) {
  return fetch(`${base}/metrics`, {
    headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
  });
}

/** A scrape as Prometheus makes it (with the metrics token), held to promtool. */
async function scrape(base: string, token: string): Promise<{ text: string; samples: Sample[] }> {
  const r = await scrapeWith(base, token);
  const text = await r.text();
  expect(r.status, text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  return { text, samples: parseSamples(text) };
}

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const r = await v1Fetch(base, key, method, path, body);
  const text = await r.text();
  return { status: r.status, text, json: text ? JSON.parse(text) : null };
}

async function userKey(kg: KeepGraphProcess, owner: string): Promise<string> {
  const made = await call(kg.base, kg.operatorKey, 'POST', '/keys', {
    name: 'metrics user',
    role: 'user',
    owners: [owner],
  });
  expect(made.status, made.text).toBe(201);
  return made.json.key as string;
}

/** Scrape until `ok` holds of the samples (the background runs on its own timers). */
async function scrapeUntil(
  base: string,
  token: string,
  ok: (s: Sample[]) => boolean,
  ms: number,
): Promise<Sample[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { samples } = await scrape(base, token);
    if (ok(samples)) return samples;
    if (Date.now() > deadline) throw new Error('the metrics did not get there in time');
    await new Promise((r) => setTimeout(r, 250));
  }
}

const EXPIRY_JOBS = { queue: 'expire', outcome: 'completed' };

/** The expiry sweep's jobs ran between the two scrapes, and its queue counts jobs done. */
function expectExpiryJobsRan(before: Sample[], after: Sample[]) {
  expect(
    sampleDelta(before, after)('keepgraph_job_duration_seconds_count', EXPIRY_JOBS),
  ).toBeGreaterThan(0);
  expect(
    sampleValue(after, 'keepgraph_queue_jobs', { queue: 'expire', state: 'completed' }),
  ).toBeGreaterThan(0);
}

const memory = (text: string) => ({ kind: 'fact', text, origin: { sessionId: 's-metrics' } });

/** Write a memory as `user`, then have a secret refused (422 refused_secret); the memory's id. */
async function writeThenRefuse(kg: KeepGraphProcess, user: string, owner: string, text: string) {
  const w = await call(kg.base, user, 'POST', `/owners/${owner}/memories`, memory(text));
  expect(w.status, w.text).toBe(201);
  const refused = await call(kg.base, user, 'POST', `/owners/${owner}/memories`, memory(secret()));
  expect([refused.status, refused.json.error.code]).toEqual([422, 'refused_secret']);
  return w.json.memory.id as string;
}

describe('GET /metrics on keepgraph start (embedded: SQLite, jobs in-process)', () => {
  const token = randomBytes(32).toString('hex');
  const owner = `metrics-e2e-${randomUUID()}`;
  let dir: string;
  let kg: KeepGraphProcess;
  let user: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keepgraph-metrics-e2e-'));
    // Values may live one second, so an expiry happens within the test.
    const policy = (await readFile(DEFAULT_POLICY, 'utf8')).replace(
      'ttl: { default: 365d, min: 60s, max: 3650d }',
      'ttl: { default: 365d, min: 1s, max: 3650d }',
    );
    expect(policy).toContain('min: 1s');
    const policyPath = join(dir, 'policy.yaml');
    await writeFile(policyPath, policy);
    kg = await startKeepGraph(join(dir, 'data'), {
      ...storeEnv('sqlite'),
      KEEPGRAPH_POLICY: policyPath,
      KEEPGRAPH_METRICS_TOKEN: token,
      KEEPGRAPH_SWEEP_INTERVAL_MS: '300',
      KEEPGRAPH_RATE_LIMIT: '0',
    });
    user = await userKey(kg, owner);
  }, 120_000);

  afterAll(async () => {
    await kg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers the metrics token and an operator key; 401 unauthenticated without a credential; 403 for a user key', async () => {
    const bare = await scrapeWith(kg.base, null);
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    const wrong = await scrapeWith(kg.base, randomBytes(32).toString('hex'));
    expect(wrong.status).toBe(401);
    const asUser = await scrapeWith(kg.base, user);
    expect(asUser.status).toBe(403);
    expect(((await asUser.json()) as { error: { code: string } }).error.code).toBe(
      'forbidden_role',
    );
    expect((await scrapeWith(kg.base, kg.operatorKey)).status).toBe(200);
    const { samples } = await scrape(kg.base, token);
    expect(
      sampleValue(samples, 'keepgraph_info', {
        version: '0.1.0',
        store: 'sqlite',
        jobs: 'in_process',
      }),
    ).toBe(1);
    // The token opens /metrics, nothing else.
    expect((await call(kg.base, token, 'GET', '/kpis')).status).toBe(401);
  });

  it('moves with writes, a refused secret, a recall, a forget and an expiry, by exactly what was done', async () => {
    const before = (await scrape(kg.base, token)).samples;
    const id = await writeThenRefuse(
      kg,
      user,
      owner,
      'The user prefers aisle seats on short flights.',
    );
    const recall = await call(kg.base, user, 'POST', `/owners/${owner}/recall`, {
      query: 'aisle seats',
    });
    expect(recall.status, recall.text).toBe(200);
    const forget = await call(kg.base, user, 'POST', `/owners/${owner}/forget`, {
      ids: [id],
    });
    expect(forget.status, forget.text).toBe(200);
    const put = await call(kg.base, user, 'PUT', `/owners/${owner}/kv/one-second`, {
      text: 'banner=hidden',
      origin: { sessionId: 's-metrics' },
      ttlSeconds: 1,
    });
    expect(put.status, put.text).toBe(200);

    const lags = (s: Sample[]) => sampleValue(s, 'keepgraph_expiry_lag_seconds_count');
    // The sweep runs every 300 ms: the value is purged soon after its second.
    const after = await scrapeUntil(kg.base, token, (s) => lags(s) > lags(before), 20_000);
    const { text } = await scrape(kg.base, token);
    // Each of these moved by exactly one: the flow's write, refusal, recall
    // and forget, the keyed value's write and its purge on expiry.
    const expired: SampleKey[] = [
      ['keepgraph_memories_written_total', { use_case: 'putByKey' }],
      ['keepgraph_cascade_deleted_memories_count', { reason: 'expire' }],
      ['keepgraph_expiry_lag_seconds_count', {}],
    ];
    const flow = ['write', 'refusedSecret', 'recall', 'forget'] as const;
    expect(notMovedByOne(before, after, flow, expired)).toEqual([]);
    // Purged within a few sweeps of its expiry.
    expect(sampleDelta(before, after)('keepgraph_expiry_lag_seconds_sum')).toBeLessThan(10);
    expectExpiryJobsRan(before, after);
    expect(sampleValue(after, 'keepgraph_kpi_attributed_share')).toBe(1);
    expect(sampleValue(after, 'keepgraph_metrics_source_up', { source: 'kpis' })).toBe(1);
    // Labels hold route patterns and codes, never what a caller sent.
    expect(text).not.toContain(owner);
    expect(text).not.toContain('one-second');
    expect(text).not.toContain('ghp_');
  }, 60_000);
});

describe('GET /metrics on keepgraph start (server mode: Neo4j, jobs on BullMQ)', () => {
  const token = randomBytes(32).toString('hex');
  const owner = `metrics-e2e-${randomUUID()}`;
  let dir: string;
  let kg: KeepGraphProcess;
  let worker: WorkerProcess | undefined;
  let user: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keepgraph-metrics-server-'));
    const env = {
      ...storeEnv('neo4j'),
      KEEPGRAPH_REDIS_URL: inject('redisUrl'),
      KEEPGRAPH_REDIS_PREFIX: `kgmetrics-${randomBytes(4).toString('hex')}`,
      KEEPGRAPH_METRICS_TOKEN: token,
      KEEPGRAPH_RATE_LIMIT: '0',
      KEEPGRAPH_SWEEP_INTERVAL_MS: '1000',
    };
    const data = join(dir, 'data');
    kg = await startKeepGraph(data, env);
    // The same data dir: the worker keys audit hashes with the same secret;
    // its schedules run the expiry sweep every second.
    worker = spawnWorker(['--data', data], keepgraphEnv(env));
    await worker.ready;
    user = await userKey(kg, owner);
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    await kg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a missing credential and a user key, and moves with writes, refusals and the worker’s jobs', async () => {
    expect((await scrapeWith(kg.base, null)).status).toBe(401);
    expect((await scrapeWith(kg.base, user)).status).toBe(403);
    const before = (await scrape(kg.base, token)).samples;
    expect(
      sampleValue(before, 'keepgraph_info', { version: '0.1.0', store: 'neo4j', jobs: 'bullmq' }),
    ).toBe(1);
    await writeThenRefuse(kg, user, owner, 'The user keeps a paper notebook for meeting notes.');

    // The worker's expiry sweep runs every second; its jobs are read from Redis.
    const after = await scrapeUntil(
      kg.base,
      token,
      (s) => sampleDelta(before, s)('keepgraph_job_duration_seconds_count', EXPIRY_JOBS) > 0,
      60_000,
    );
    expect(notMovedByOne(before, after, ['write', 'refusedSecret'])).toEqual([]);
    expectExpiryJobsRan(before, after);
    expect(sampleValue(after, 'keepgraph_metrics_source_up', { source: 'queues' })).toBe(1);
  }, 120_000);
});
