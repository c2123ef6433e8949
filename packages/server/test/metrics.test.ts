// GET /metrics over a real SQLite runtime and real API keys: who may read
// it (an operator credential or the metrics token; 401 without either, 403
// for another role), that each family moves when its work is done (writes,
// refusals by reason, recalls, cascades by reason, eviction inside a write,
// expiry lag, in-process jobs, requests by route pattern) and only then,
// that the KPI gauges are read at most once per cache period and left unset
// while they have no figure, that an observer which throws fails nothing,
// and that the exposition passes `promtool check metrics`.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { type Observation } from '@keepgraph/core';
import { DEFAULT_POLICY_PATH } from '@keepgraph/core/policy';
import { ManualClock } from '@keepgraph/core/ports';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { openEmbeddedRuntime, type EmbeddedRuntime } from '@keepgraph/runtime';
import { buildApp } from '../src/app.ts';
import { KPI_CACHE_MS, createServerMetrics } from '../src/metrics/server-metrics.ts';
import {
  hasSample,
  notMovedByOne,
  parseSamples,
  promtoolCheck,
  promtoolCheckQueries,
  sampleDelta,
  sampleValue,
  type Sample,
} from '../src/testing.ts';
import { scratchRuntime } from './helpers.ts';
import { keyed, makeKey, type KeyedClient } from './keyed-clients.ts';

const TOKEN = randomBytes(32).toString('hex');
const CAP = 5;
const owner = `metrics-${randomUUID()}`;
const capped = `capped-${randomUUID()}`;
const secret = () => `the deploy token is ghp_${randomUUID().replaceAll('-', '')}Wxyz`;

let dir: string;
let runtime: EmbeddedRuntime;
let app: FastifyInstance;
const clock = new ManualClock(new Date());
/** The metrics' own clock: the KPI cache moves only when this does. */
let metricsNow = Date.now();
const seen: Observation[] = [];
let operator: KeyedClient;
let user: KeyedClient;
let analyst: KeyedClient;

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const r = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(r.statusCode, r.body).toBe(200);
  return { text: r.body, samples: parseSamples(r.body) };
}

const memory = (text: string, extra: object = {}) => ({
  kind: 'fact',
  text,
  origin: { sessionId: 's-metrics' },
  ...extra,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-metrics-'));
  // A small cap, so a write evicts (a cascade no result reports).
  const policy = (await readFile(DEFAULT_POLICY_PATH, 'utf8')).replace(
    /maxMemoriesPerOwner: \d+/,
    `maxMemoriesPerOwner: ${CAP}`,
  );
  const policyPath = join(dir, 'policy.yaml');
  await writeFile(policyPath, policy);
  const metrics = createServerMetrics({ now: () => metricsNow });
  runtime = await openEmbeddedRuntime({
    dataDir: join(dir, 'data'),
    policyPath,
    embedder: createHashingEmbedder(16),
    clock,
    // The background runs (its jobs are observed) but its timers are far off.
    sweepIntervalMs: 3_600_000,
    observe: (o) => {
      seen.push(o);
      metrics.observe(o);
    },
  });
  app = buildApp({
    engine: runtime.engine,
    metrics,
    auth: { metricsToken: TOKEN },
    queues: { metrics: runtime.background!.runner },
  });
  await app.ready();
  operator = keyed(app, await makeKey(runtime.engine, 'operator'));
  user = keyed(app, await makeKey(runtime.engine, 'user', [owner, capped]));
  analyst = keyed(app, await makeKey(runtime.engine, 'analyst'));
  await runtime.background!.settle();
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('who may read GET /metrics', () => {
  it('an operator key or the metrics token; 401 without a credential or with a wrong token; 403 for other roles', async () => {
    const bare = await app.inject({ method: 'GET', url: '/metrics' });
    expect(bare.statusCode).toBe(401);
    expect(bare.json().error.code).toBe('unauthenticated');
    expect(bare.headers['www-authenticate']).toMatch(/^Bearer/);

    const wrong = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${randomBytes(32).toString('hex')}` },
    });
    expect([wrong.statusCode, wrong.json().error.code]).toEqual([401, 'unauthenticated']);

    for (const c of [user, analyst]) {
      const r = await c.inject({ method: 'GET', url: '/metrics' });
      expect([r.statusCode, r.json().error.code]).toEqual([403, 'forbidden_role']);
    }

    const op = await operator.inject({ method: 'GET', url: '/metrics' });
    expect(op.statusCode).toBe(200);
    expect(op.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(op.body).toContain('# TYPE keepgraph_http_requests_total counter');
    await scrape();
  });

  it('the metrics token reads /metrics and nothing else', async () => {
    for (const url of ['/v1/kpis', '/v1/queues', `/v1/owners/${owner}/memories`]) {
      const r = await app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect([url, r.statusCode]).toEqual([url, 401]);
    }
  });
});

describe('the metrics move with the work', () => {
  it('counts writes, refusals by reason, recalls, cascades by reason and requests by route pattern', async () => {
    const before = (await scrape()).samples;
    const w = await user.inject({
      method: 'POST',
      url: `/v1/owners/${owner}/memories`,
      payload: memory('The user prefers window seats on long flights.'),
    });
    expect(w.statusCode, w.body).toBe(201);
    const refused = await user.inject({
      method: 'POST',
      url: `/v1/owners/${owner}/memories`,
      payload: memory(secret()),
    });
    expect(refused.json().error.code).toBe('refused_secret');
    const batch = await user.inject({
      method: 'POST',
      url: `/v1/owners/${owner}/memories:batch`,
      payload: {
        memories: [memory('The user drinks green tea every morning.'), memory(secret())],
      },
    });
    expect(batch.statusCode, batch.body).toBe(200);
    expect(batch.json().failed).toMatchObject([{ code: 'refused_secret' }]);
    const recall = await user.inject({
      method: 'POST',
      url: `/v1/owners/${owner}/recall`,
      payload: { query: 'window seats' },
    });
    expect(recall.statusCode).toBe(200);
    const forget = await user.inject({
      method: 'POST',
      url: `/v1/owners/${owner}/forget`,
      payload: { ids: [w.json().memory.id] },
    });
    expect(forget.statusCode, forget.body).toBe(200);

    const { text, samples: after } = await scrape();
    // Each of these moved by exactly one.
    expect(
      notMovedByOne(
        before,
        after,
        ['write', 'refusedSecret', 'recall', 'forget'],
        [
          ['keepgraph_memories_written_total', { use_case: 'rememberMany' }],
          [
            'keepgraph_write_refusals_total',
            { use_case: 'rememberMany', reason: 'refused_secret' },
          ],
          [
            'keepgraph_use_cases_total',
            { use_case: 'remember', outcome: 'error', code: 'refused_secret' },
          ],
          ['keepgraph_cascade_deleted_memories_sum', { reason: 'forget' }],
        ],
      ),
    ).toEqual([]);
    // Labels hold patterns and codes, never what a caller sent.
    expect(text).not.toContain(owner);
    expect(text).not.toContain('ghp_');
  });

  it('counts an eviction over the cap inside a write as a cascade of reason cap', async () => {
    const before = (await scrape()).samples;
    for (let i = 0; i <= CAP; i++) {
      const r = await user.inject({
        method: 'POST',
        url: `/v1/owners/${capped}/memories`,
        payload: memory(`The user visited city number ${i} last spring.`),
      });
      expect(r.statusCode, r.body).toBe(201);
    }
    const after = (await scrape()).samples;
    expect(
      sampleDelta(before, after)('keepgraph_cascade_deleted_memories_count', { reason: 'cap' }),
    ).toBe(1);
    expect(seen).toContainEqual({ type: 'cascade', reason: 'cap', deletedMemories: 1 });
  });

  it('observes the lag of each purged memory, the expiry cascade and the expiry job', async () => {
    const before = (await scrape()).samples;
    const put = await user.inject({
      method: 'PUT',
      url: `/v1/owners/${owner}/kv/short-lived`,
      payload: { text: 'theme=dark', origin: { sessionId: 's-metrics' }, ttlSeconds: 60 },
    });
    expect(put.statusCode, put.body).toBe(200);
    clock.advance(90_000);
    await runtime.background!.tickExpiry();
    await runtime.background!.settle();
    const after = (await scrape()).samples;
    const delta = sampleDelta(before, after);
    expect(delta('keepgraph_expiry_lag_seconds_count')).toBe(1);
    expect(delta('keepgraph_expiry_lag_seconds_sum')).toBeCloseTo(30, 3);
    expect(delta('keepgraph_cascade_deleted_memories_count', { reason: 'expire' })).toBe(1);
    expect(delta('keepgraph_memories_written_total', { use_case: 'putByKey' })).toBe(1);
    expect(
      delta('keepgraph_job_duration_seconds_count', { queue: 'expire', outcome: 'completed' }),
    ).toBe(1);
    expect(delta('keepgraph_queue_jobs', { queue: 'expire', state: 'completed' })).toBe(1);
  });
});

describe('the KPI gauges', () => {
  it('are read from the kpis use-case at most once per cache period, and unset while they have no figure', async () => {
    metricsNow += KPI_CACHE_MS;
    const runs = (s: Sample[]) =>
      sampleValue(s, 'keepgraph_use_cases_total', { use_case: 'kpis', outcome: 'ok', code: '' });
    // A scrape's counters are read before its own kpis run is observed: the
    // run a scrape starts shows in the next one.
    await scrape();
    const second = (await scrape()).samples;
    const third = (await scrape()).samples;
    expect(runs(third)).toBe(runs(second));
    metricsNow += KPI_CACHE_MS;
    await scrape();
    const later = (await scrape()).samples;
    expect(runs(later)).toBe(runs(third) + 1);

    const k = await runtime.engine.kpis({ role: 'operator', owners: 'all', principal: 'test' });
    expect(sampleValue(later, 'keepgraph_kpi_attributed_share')).toBe(1);
    expect(sampleValue(later, 'keepgraph_kpi_memories')).toBe(k.memories);
    // One expiry, 30 s late against a tolerance of 60 s: on schedule.
    expect(sampleValue(later, 'keepgraph_kpi_expiry_on_schedule_share')).toBe(1);
    expect(sampleValue(later, 'keepgraph_kpi_expiry_lag_p50_seconds')).toBe(30);
    expect(sampleValue(later, 'keepgraph_metrics_source_up', { source: 'kpis' })).toBe(1);
    expect(sampleValue(later, 'keepgraph_metrics_source_up', { source: 'queues' })).toBe(1);
    // Fields being added to kpis: shown once present, absent (not 0) while null.
    const read = k as typeof k & {
      medianAgeMs?: number | null;
      deletionPropagation?: { p50Ms: number | null } | null;
    };
    const gauge = (name: string, ms: number | null | undefined) => {
      if (ms === null || ms === undefined) expect(hasSample(later, name), name).toBe(false);
      else expect(sampleValue(later, name), name).toBeGreaterThanOrEqual(0);
    };
    gauge('keepgraph_kpi_memory_median_age_seconds', read.medianAgeMs);
    gauge('keepgraph_kpi_deletion_propagation_seconds', read.deletionPropagation?.p50Ms);
  });

  it('leave a gauge without a figure unset: no expiry yet, no on-schedule share', async () => {
    const rt = await scratchRuntime('keepgraph-metrics-fresh-');
    const bare = buildApp({
      engine: rt.engine,
      auth: { trustedCaller: { role: 'operator', owners: 'all', principal: 'op' } },
    });
    try {
      const s = parseSamples((await bare.inject({ method: 'GET', url: '/metrics' })).body);
      expect(hasSample(s, 'keepgraph_kpi_expiry_on_schedule_share')).toBe(false);
      expect(hasSample(s, 'keepgraph_kpi_expiry_lag_p50_seconds')).toBe(false);
      expect(sampleValue(s, 'keepgraph_kpi_attributed_share')).toBe(1);
      expect(
        sampleValue(s, 'keepgraph_info', { version: '0.1.0', store: 'sqlite', jobs: 'none' }),
      ).toBe(1);
      // No job runner: no queue depths, and no source said to be down.
      expect(hasSample(s, 'keepgraph_queue_jobs')).toBe(false);
      expect(hasSample(s, 'keepgraph_metrics_source_up', { source: 'queues' })).toBe(false);
    } finally {
      await bare.close();
      await rt.close();
    }
  });
});

describe('the engine observer', () => {
  it('reports use-cases with their outcome and code', () => {
    const uses = seen.filter((o) => o.type === 'use_case');
    expect(uses).toContainEqual(
      expect.objectContaining({ useCase: 'remember', outcome: 'error', code: 'refused_secret' }),
    );
    expect(uses).toContainEqual(
      expect.objectContaining({ useCase: 'recall', outcome: 'ok', result: expect.anything() }),
    );
    for (const u of uses) expect(u.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('that throws fails no use-case: the write is stored and answered', async () => {
    const rt = await scratchRuntime('keepgraph-metrics-throws-', {
      observe: () => {
        throw new Error('a broken metrics adapter');
      },
    });
    try {
      const caller = { role: 'user' as const, owners: 'all' as const, principal: 'test' };
      const r = await rt.engine.remember(caller, 'o', memory('The user likes hiking in autumn.'));
      expect((await rt.engine.get(caller, 'o', r.memory.id)).id).toBe(r.memory.id);
      await expect(rt.engine.forget(caller, 'o', [r.memory.id])).resolves.toMatchObject({
        deletedMemoryIds: [r.memory.id],
      });
      await expect(rt.engine.remember(caller, 'o', memory(secret()))).rejects.toMatchObject({
        code: 'refused_secret',
      });
    } finally {
      await rt.close();
    }
  });
});

describe('the Grafana dashboard and docs/metrics.md', () => {
  const docs = join(import.meta.dirname, '../../../docs');
  /** The families of the exposition, less prom-client's process defaults. */
  const ours = (text: string) =>
    [...text.matchAll(/^# TYPE (keepgraph_\w+) \w+$/gm)]
      .map((m) => m[1]!)
      .filter((n) => !/^keepgraph_(process|nodejs)_/.test(n));

  it('charts every family the server exports, and only metrics it exports', async () => {
    const { text } = await scrape();
    const families = new Set(text.match(/^# TYPE (\w+)/gm)!.map((l) => l.slice('# TYPE '.length)));
    const dashboard = JSON.parse(await readFile(join(docs, 'grafana-dashboard.json'), 'utf8'));
    const exprs = JSON.stringify(dashboard.panels);
    const used = new Set(
      [...exprs.matchAll(/keepgraph_\w+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, '')),
    );
    for (const name of used) expect(families.has(name), name).toBe(true);
    for (const name of ours(text)) expect(used.has(name), name).toBe(true);
    // Any Prometheus: the data source is a variable every panel uses.
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const charts = dashboard.panels.filter((x: { type: string }) => x.type !== 'row');
    for (const p of charts)
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
    // Every query parses as PromQL (Grafana's variables given values).
    const queries = charts.flatMap((p: { targets: { expr: string }[] }) =>
      p.targets.map((t) =>
        t.expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*'),
      ),
    );
    expect(queries.length).toBeGreaterThan(20);
    const check = promtoolCheckQueries(queries);
    expect(check.status, check.output).toBe(0);
  });

  it('docs/metrics.md names every family', async () => {
    const { text } = await scrape();
    const doc = await readFile(join(docs, 'metrics.md'), 'utf8');
    for (const name of ours(text)) expect(doc, name).toContain(`\`${name}\``);
  });
});

describe('the exposition', () => {
  it('passes promtool check metrics (format and naming lint)', async () => {
    const { text } = await scrape();
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });

  it('fails promtool when a metric is misnamed (the check can fail)', () => {
    const bad = '# HELP keepgraph_x_total x\n# TYPE keepgraph_x_total gauge\nkeepgraph_x_total 1\n';
    expect(promtoolCheck(bad).status).not.toBe(0);
  });
});
