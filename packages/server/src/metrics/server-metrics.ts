// The server's Prometheus metrics (prom-client), one registry per server.
// Three kinds of figures:
// - counted as things happen: HTTP requests (by route pattern, never the
//   URL, which holds owner ids and keys), and what the engine observes
//   (core's Observation: use-cases, cascades, in-process jobs), mapped to
//   metrics here so core knows nothing of Prometheus;
// - read at scrape time: queue depths (the QueueMetricsSource behind
//   GET /v1/queues), job durations from Redis in server mode, and the
//   governance KPIs (the engine's `kpis` use-case, which scans the audit
//   log, so cached for KPI_CACHE_MS);
// - the process's own (prom-client's default metrics, prefixed).
// Every label takes values from a closed set (route patterns, methods,
// status codes, use-case names, error codes, deletion reasons, job names).
import type { Queue } from 'bullmq';
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type HistogramConfiguration,
} from 'prom-client';
import {
  type Caller,
  type CorrectionResult,
  type Engine,
  type ExpiryRun,
  type ImportReport,
  type Kpis,
  type Observation,
  type Observer,
  type RememberManyResult,
  type SessionAppendResult,
  type UseCaseObservation,
} from '@keepgraph/core';
import { type QueueMetrics, type QueueMetricsSource } from '@keepgraph/core/jobs';
import { FinishedJobsReader } from './finished-jobs.ts';

/** Every metric's name starts with this. */
export const METRIC_PREFIX = 'keepgraph_';

/** How long a KPI reading serves scrapes before the audit log is scanned again. */
export const KPI_CACHE_MS = 20_000;

/** How long a scrape waits for a source (the store, Redis) before it reports it down. */
export const SOURCE_TIMEOUT_MS = 5_000;

/** The caller the KPI gauges read as: an operator over every owner, never a request's. */
const METRICS_CALLER: Caller = { role: 'operator', owners: 'all', principal: 'system:metrics' };

/** Methods a route may have; anything else is counted as OTHER (a label's values stay closed). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Use-cases that store memories, and how many one result stored. */
const WRITES: Readonly<Record<string, (result: unknown) => number>> = {
  remember: () => 1,
  putByKey: () => 1,
  correct: (r) => ((r as CorrectionResult).memory ? 1 : 0),
  rememberMany: (r) => (r as RememberManyResult).stored.length,
  importMemories: (r) => (r as ImportReport).imported,
  sessionAppend: (r) => (r as SessionAppendResult).rememberedIds.length,
};

/** Refusals inside a successful batch write: item codes (only the policy's and authority's count). */
const BATCH_REFUSALS: Readonly<Record<string, (result: unknown) => [string, number][]>> = {
  rememberMany: (r) => (r as RememberManyResult).failed.map((f) => [f.code, 1]),
  importMemories: (r) => Object.entries((r as ImportReport).refusedByCode),
};

const RECALLS = new Set(['recall', 'why']);

const isRefusalCode = (code: string): boolean =>
  code.startsWith('refused_') || code === 'authority_exceeds_role';

/** The KPI fields another change adds (medianAgeMs, deletionPropagation): read when present. */
type KpisRead = Kpis & {
  medianAgeMs?: number | null;
  deletionPropagation?: { count: number; p50Ms: number | null; maxMs: number | null } | null;
};

/** Where the scrape-time figures come from; given once the app knows them. */
export interface MetricsSources {
  engine: Engine;
  /** The job runner's figures (GET /v1/queues'); absent: no queue gauges. */
  queues?: QueueMetricsSource;
  /** BullMQ queues (server mode): job durations are read from them. */
  bullQueues?: readonly Queue[];
  /** The API version, for keepgraph_info. */
  version: string;
}

/** The server's metrics: what the app, the engine and the route use. */
export interface ServerMetrics {
  readonly registry: Registry;
  /** The engine's observer (EngineOptions.observe, through the runtime). */
  readonly observe: Observer;
  /** Count one answered request under its route pattern. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** Give the scrape-time gauges their sources (once; buildApp does it). */
  attach(sources: MetricsSources): void;
  /** The exposition, in Prometheus's text format (each call reads the sources anew). */
  scrape(): Promise<string>;
  readonly contentType: string;
}

/** A promise that rejects after `ms`, so one stuck source cannot hold a scrape. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

export function createServerMetrics(opts: { now?: () => number } = {}): ServerMetrics {
  const now = opts.now ?? Date.now;
  const registry = new Registry();
  const registers = [registry];
  const name = (n: string) => `${METRIC_PREFIX}${n}`;
  const counter = <L extends string>(c: CounterConfiguration<L>) =>
    new Counter<L>({ ...c, name: name(c.name), registers });
  const histogram = <L extends string>(h: HistogramConfiguration<L>) =>
    new Histogram<L>({ ...h, name: name(h.name), registers });

  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  // Gauges that prom-client names like counters: `promtool check metrics`
  // rightly refuses a gauge ending in _total, so they are left out.
  for (const n of ['active_handles_total', 'active_requests_total', 'active_resources_total'])
    registry.removeSingleMetric(`${METRIC_PREFIX}nodejs_${n}`);

  const info = new Gauge({
    name: name('info'),
    help: 'Always 1; labels say what runs: the API version, the store and where jobs run (in_process, bullmq or none)',
    labelNames: ['version', 'store', 'jobs'] as const,
    registers,
  });

  const requests = counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern (never the URL), method and status',
    labelNames: ['route', 'method', 'status'] as const,
  });
  const requestSeconds = histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });

  const useCases = counter({
    name: 'use_cases_total',
    help: 'Engine use-cases run (HTTP, MCP and in-process jobs alike), by use-case, outcome (ok, error) and error code',
    labelNames: ['use_case', 'outcome', 'code'] as const,
  });
  const recallSeconds = histogram({
    name: 'recall_duration_seconds',
    help: 'Time the engine took to recall (recall and why), by use-case and outcome',
    labelNames: ['use_case', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  const written = counter({
    name: 'memories_written_total',
    help: 'Memories stored by write use-cases (remember, putByKey, correct, rememberMany, importMemories, sessionAppend)',
    labelNames: ['use_case'] as const,
  });
  const refusals = counter({
    name: 'write_refusals_total',
    help: 'Writes refused by the policy gate or the authority cap (each refused item of a batch counts), by use-case and reason code',
    labelNames: ['use_case', 'reason'] as const,
  });
  const cascadeSize = histogram({
    name: 'cascade_deleted_memories',
    help: 'Memories deleted per deletion cascade (roots and all derived from them), by deletion reason',
    labelNames: ['reason'] as const,
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000, 10000],
  });
  const expiryLag = histogram({
    name: 'expiry_lag_seconds',
    help: "Time between a memory's scheduled expiry and its purge, per memory purged by this process's expiry runs",
    buckets: [1, 5, 15, 30, 60, 120, 300, 900, 3600, 6 * 3600, 24 * 3600],
  });
  // The sources of the figures read at scrape time, once attached.
  let src: (MetricsSources & { finishedJobs: FinishedJobsReader | null }) | null = null;

  // Embedded mode: observed as the in-process runner finishes jobs. Server
  // mode: read from Redis at each scrape (see finished-jobs.ts).
  const jobSeconds = histogram({
    name: 'job_duration_seconds',
    help: 'Processing time of background jobs done for good, by queue and outcome (completed, failed); in server mode read from Redis at scrape time',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    async collect() {
      if (!src?.finishedJobs) return;
      try {
        for (const j of await within(SOURCE_TIMEOUT_MS, 'Redis', src.finishedJobs.read()))
          this.observe({ queue: j.queue, outcome: j.outcome }, j.durationMs / 1000);
      } catch {
        // Read at the next scrape: the marks did not move.
      }
    },
  });

  // --- read at scrape time --------------------------------------------------
  // One reading of the queues per scrape (scrape() drops the last one),
  // shared by the metrics that show it.
  let queueReading: Promise<QueueMetrics[] | null> | null = null;
  const queueFigures = (): Promise<QueueMetrics[] | null> => {
    const queues = src?.queues;
    if (!queues) return Promise.resolve(null);
    return (queueReading ??= within(
      SOURCE_TIMEOUT_MS,
      'the job runner',
      queues.queueMetrics(),
    ).catch(() => null));
  };

  // kpis scans the whole audit log: one reading serves scrapes for
  // KPI_CACHE_MS, and a scrape waits for a reading under way at most
  // SOURCE_TIMEOUT_MS (it goes on, and serves the next scrape). A failed
  // reading is not kept: the next scrape starts another.
  let kpiReading: { at: number; settled: boolean; value: Promise<KpisRead | null> } | null = null;
  const kpis = (): Promise<KpisRead | null> => {
    const engine = src?.engine;
    if (!engine) return Promise.resolve(null);
    if (!kpiReading || (kpiReading.settled && now() - kpiReading.at >= KPI_CACHE_MS)) {
      const reading: NonNullable<typeof kpiReading> = {
        at: now(),
        settled: false,
        value: engine.kpis(METRICS_CALLER).then(
          (k) => k as KpisRead,
          () => {
            if (kpiReading === reading) kpiReading = null;
            return null;
          },
        ),
      };
      void reading.value.finally(() => (reading.settled = true));
      kpiReading = reading;
    }
    return within(SOURCE_TIMEOUT_MS, 'the store', kpiReading.value).catch(() => null);
  };

  new Gauge({
    name: name('metrics_source_up'),
    help: 'Whether this scrape could read a source of figures (kpis: the store; queues: the job runner or Redis): 1 yes, 0 no',
    labelNames: ['source'] as const,
    registers,
    async collect() {
      this.reset();
      if (!src) return;
      const [k, q] = await Promise.all([kpis(), src.queues ? queueFigures() : undefined]);
      this.set({ source: 'kpis' }, k ? 1 : 0);
      if (src.queues) this.set({ source: 'queues' }, q ? 1 : 0);
    },
  });

  new Gauge({
    name: name('queue_jobs'),
    help: 'Jobs in each queue by state (waiting, active, delayed, failed, completed), read at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      // Redis away: no depths rather than stale ones (metrics_source_up says so).
      for (const q of (src?.queues && (await queueFigures())) || [])
        for (const state of ['waiting', 'active', 'delayed', 'failed', 'completed'] as const)
          this.set({ queue: q.name, state }, q[state]);
    },
  });

  const kpiGauge = (n: string, help: string, read: (k: KpisRead) => number | null | undefined) =>
    new Gauge({
      name: name(n),
      help,
      registers,
      async collect() {
        const k = src ? await kpis() : null;
        const v = k ? read(k) : null;
        // Unset (no sample) while there is no figure: 0 would be a lie.
        if (v === null || v === undefined || !Number.isFinite(v)) this.remove();
        else this.set(v);
      },
    });
  const seconds = (ms: number | null | undefined) =>
    ms === null || ms === undefined ? null : ms / 1000;
  kpiGauge(
    'kpi_attributed_share',
    'Share of stored memories with origin, authority, created-at and expires-at (1 by construction)',
    (k) => k.attributedShare,
  );
  kpiGauge('kpi_memory_median_age_seconds', 'Median age of the stored memories', (k) =>
    seconds(k.medianAgeMs),
  );
  kpiGauge(
    'kpi_deletion_propagation_seconds',
    'Median time for a deletion to reach everything derived from it (p50 of the deletions in the audit log)',
    (k) => seconds(k.deletionPropagation?.p50Ms),
  );
  kpiGauge(
    'kpi_expiry_on_schedule_share',
    'Share of expired memories purged within the tolerance of their scheduled expiry (over the audit log)',
    (k) => k.expiry?.onScheduleShare,
  );
  kpiGauge(
    'kpi_expiry_lag_p50_seconds',
    "Median lag between scheduled expiry and purge over the audit log (every process's sweeps)",
    (k) => seconds(k.expiry?.lagP50Ms),
  );
  kpiGauge(
    'kpi_expiry_lag_max_seconds',
    'Largest lag between scheduled expiry and purge over the audit log',
    (k) => seconds(k.expiry?.lagMaxMs),
  );
  kpiGauge('kpi_memories', 'Memories stored, over every owner', (k) => k.memories);
  kpiGauge('kpi_owners', 'Owners with memories', (k) => k.owners);

  const observeUseCase = (o: UseCaseObservation) => {
    useCases.inc({ use_case: o.useCase, outcome: o.outcome, code: o.code ?? '' });
    if (RECALLS.has(o.useCase))
      recallSeconds.observe({ use_case: o.useCase, outcome: o.outcome }, o.durationMs / 1000);
    if (o.outcome === 'error') {
      if (o.useCase in WRITES && o.code && isRefusalCode(o.code))
        refusals.inc({ use_case: o.useCase, reason: o.code });
      return;
    }
    const stored = WRITES[o.useCase]?.(o.result) ?? 0;
    if (stored > 0) written.inc({ use_case: o.useCase }, stored);
    for (const [code, n] of BATCH_REFUSALS[o.useCase]?.(o.result) ?? [])
      if (isRefusalCode(code) && n > 0) refusals.inc({ use_case: o.useCase, reason: code }, n);
    if (o.useCase === 'expireDue')
      for (const ms of (o.result as ExpiryRun).lagsMs) expiryLag.observe(Math.max(0, ms) / 1000);
  };

  const observe: Observer = (o: Observation) => {
    switch (o.type) {
      case 'use_case':
        return observeUseCase(o);
      case 'cascade':
        return cascadeSize.observe({ reason: o.reason }, o.deletedMemories);
      case 'job':
        return jobSeconds.observe({ queue: o.queue, outcome: o.outcome }, o.durationMs / 1000);
    }
  };

  const metrics: ServerMetrics = {
    registry,
    observe,
    contentType: registry.contentType,
    observeRequest(route, method, status, seconds) {
      const labels = {
        route,
        method: METHODS.has(method) ? method : 'OTHER',
        status: String(status),
      };
      requests.inc(labels);
      requestSeconds.observe(labels, seconds);
    },
    attach(sources) {
      if (src) throw new Error('these metrics already have their sources (one app each)');
      src = {
        ...sources,
        finishedJobs: sources.bullQueues ? new FinishedJobsReader(sources.bullQueues, now()) : null,
      };
      info.set(
        {
          version: sources.version,
          store: sources.engine.services.serving.store,
          jobs: sources.bullQueues ? 'bullmq' : sources.queues ? 'in_process' : 'none',
        },
        1,
      );
    },
    scrape() {
      queueReading = null;
      return registry.metrics();
    },
  };
  return metrics;
}
