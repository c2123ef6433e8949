// `pnpm bench`: the performance benchmark of issue 4 (item 5), on either store.
//   pnpm bench [--store sqlite|neo4j] [--size small|large] [--out FILE.json]
//              [--steps ingest,recall,cascade,expiry] [--queries 200] [--pool 1000]
//              [--recall-budget 60] [--peer mem0] [--cascade-warmup N]
// Steps: (a) ingest throughput with embeddings vs the raw embedder, refusals
// vs the workload's labels; (b) recall p50/p95/p99 with and without the query
// embedding, owners of 100 to 100k in stores of 10k to 100k (1M with
// --size large); (c) deletion cascade time vs derived-chain size; (d) expiry
// sweep throughput; (e) peak RSS after each step. Progress goes to stderr, a
// markdown summary to stdout, everything to the JSON file (default
// bench/results/bench-<store>-<size>.json).
// Neo4j: NEO4J_URI if set (owners are prefixed per run and removed after);
// otherwise the bench starts the repository's Neo4j test server on port
// 17695 (.tmp/neo4j/bench-17695), empty for each database, and stops it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { BenchContext, type StoreKind } from './steps/context.ts';
import { ingestStep, type IngestResult } from './steps/ingest.ts';
import { recallStep, type RecallResult } from './steps/recall.ts';
import { cascadeStep, type CascadeRow } from './steps/cascade.ts';
import { expiryStep, type ExpiryResult } from './steps/expiry.ts';
import { embedAll } from './steps/context.ts';
import { syntheticTexts } from './synthetic.ts';
import { machineInfo } from './machine.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    size: { type: 'string', default: 'small' },
    out: { type: 'string' },
    steps: { type: 'string', default: 'ingest,recall,cascade,expiry' },
    queries: { type: 'string', default: '200' },
    /** Seconds per recall pass (owner, mode): fewer queries are timed when they would take longer. */
    'recall-budget': { type: 'string', default: '60' },
    /** Texts embedded for the pool of vectors when the ingest step is skipped. */
    pool: { type: 'string', default: '1000' },
    peer: { type: 'string' },
    'neo4j-port': { type: 'string', default: '17695' },
    /** Unmeasured rounds of every cascade shape first (default: 1 on Neo4j, whose JIT starts cold; 0 on SQLite). */
    'cascade-warmup': { type: 'string' },
  },
});
const storeKind = values.store as StoreKind;
if (storeKind !== 'sqlite' && storeKind !== 'neo4j')
  throw new Error('--store must be sqlite or neo4j');
const size = values.size as 'small' | 'large';
if (size !== 'small' && size !== 'large') throw new Error('--size must be small or large');
const cascadeWarmup = Number(values['cascade-warmup'] ?? (storeKind === 'neo4j' ? 1 : 0));
if (!Number.isInteger(cascadeWarmup) || cascadeWarmup < 0)
  throw new Error('--cascade-warmup must be a whole number, 0 or more');
const steps = new Set(values.steps.split(',').map((s) => s.trim()));
const out = values.out ?? `bench/results/bench-${storeKind}-${size}.json`;
const SIZES = {
  small: { ingest: 1_000, ingestOwners: 4, cascadeRuns: 3, expired: 10_000, expiryOwners: 20 },
  large: { ingest: 5_000, ingestOwners: 20, cascadeRuns: 5, expired: 100_000, expiryOwners: 100 },
}[size];

const wall0 = performance.now();
// The query cache off: every recall measured pays its embedding (the
// synthetic queries repeat).
const embedder = await createTransformersEmbedder({ queryCacheSize: 0 });
const ctx = new BenchContext(storeKind, embedder, {
  neo4jPort: Number(values['neo4j-port']),
  neo4jUri: process.env.NEO4J_URI,
});
const stepSeconds: Record<string, number> = {};
const timed = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const r = await f();
  stepSeconds[name] = +((performance.now() - t0) / 1000).toFixed(1);
  ctx.snapshot(name);
  ctx.log(`${name}: done in ${stepSeconds[name]} s`);
  return r;
};

let ingest: Omit<IngestResult, 'pool'> | undefined;
let recall: RecallResult | undefined;
let cascade: CascadeRow[] | undefined;
let expiry: ExpiryResult | undefined;
let peer: unknown;
let pool: Float32Array[] = [];
try {
  ctx.log(
    `store ${storeKind}, size ${size}, steps ${[...steps].join(',')}, model ${embedder.modelId}`,
  );
  if (steps.has('ingest')) {
    const r = await timed('ingest', () =>
      ingestStep(ctx, {
        memories: SIZES.ingest,
        owners: SIZES.ingestOwners,
        seed: 42,
        batch: 64,
        secretRate: 0.01,
        personalRate: 0.02,
      }),
    );
    const { pool: p, ...rest } = r;
    pool = p;
    ingest = rest;
  }
  if (pool.length === 0 && (steps.has('recall') || steps.has('cascade') || steps.has('expiry'))) {
    ctx.log(`embedding a pool of ${values.pool} texts for the vectors of loaded memories`);
    pool = await embedAll(embedder, syntheticTexts(Number(values.pool)), 'document');
  }
  if (steps.has('recall'))
    recall = await timed('recall', () =>
      recallStep(ctx, {
        size,
        queries: Number(values.queries),
        pool,
        seed: 7,
        budgetMs: Number(values['recall-budget']) * 1000,
      }),
    );
  if (steps.has('cascade') || steps.has('expiry')) {
    const db = await ctx.freshStore('ops');
    try {
      if (steps.has('cascade'))
        cascade = await timed('cascade', () =>
          cascadeStep(ctx, db, {
            pool,
            runs: SIZES.cascadeRuns,
            seed: 11,
            warmupRounds: cascadeWarmup,
          }),
        );
      if (steps.has('expiry'))
        expiry = await timed('expiry', () =>
          expiryStep(ctx, db, {
            expired: SIZES.expired,
            owners: SIZES.expiryOwners,
            pool,
            seed: 13,
          }),
        );
    } finally {
      await db.close();
    }
  }
  if (values.peer) {
    if (values.peer !== 'mem0') throw new Error('--peer: only mem0 is known');
    // Written by another change (bench/peer-latency.ts); loaded only when asked
    // for, through a variable so the bench typechecks without it.
    const spec = './peer-latency.ts';
    const mod = (await import(spec)) as {
      mem0SideBySide?: (opts: {
        sizes: number[];
        queries: number;
        embedder?: unknown;
        log?: (line: string) => void;
      }) => Promise<unknown[]>;
      formatRows?: (rows: readonly unknown[]) => string[];
    };
    if (!mod.mem0SideBySide) throw new Error('bench/peer-latency.ts exports no mem0SideBySide');
    const rows = await timed('peer-mem0', () =>
      mod.mem0SideBySide!({
        sizes: [1_000, 10_000],
        queries: Number(values.queries),
        embedder,
        log: (l) => ctx.log(`mem0: ${l}`),
      }),
    );
    peer = { rows, table: mod.formatRows?.(rows) };
  }
} finally {
  await ctx.close();
}

const wallSeconds = +((performance.now() - wall0) / 1000).toFixed(1);
const result = {
  machine: machineInfo(),
  store: storeKind,
  size,
  model: embedder.modelId,
  wallSeconds,
  stepSeconds,
  ingest,
  recall,
  cascade,
  expiry,
  peer,
  memory: ctx.memory,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
ctx.log(`results: ${out}`);
console.log(markdown());

function markdown(): string {
  const L: string[] = [];
  const m = result.machine;
  L.push(
    `## KeepGraph bench: ${storeKind}, ${size} (${m.cpus} vCPU, load avg ${m.loadAvg[0]} / ${m.loadAvg[1]}, wall ${wallSeconds} s)`,
    '',
  );
  if (ingest) {
    const b = ingest.breakdownMsPerRecord;
    L.push(
      `### Ingest (${ingest.memories} workload records, ${ingest.owners} owners, batches of ${ingest.batch}, ${ingest.model})`,
      '',
      '| figure | value | target |',
      '|---|---|---|',
      `| raw embedder, same texts | ${ingest.rawEmbedderPerSec} texts/s | |`,
      `| ingest with embeddings (rememberMany) | ${ingest.ingestPerSec} memories/s | ≥ 300 ${ingest.ingestPerSec >= 300 ? '✅' : '❌'} |`,
      `| ingest / raw | ${ingest.ingestShareOfRaw} | ≥ 0.80 ${ingest.ingestShareOfRaw >= 0.8 ? '✅' : '❌'} |`,
      `| per record: embed / gate / store write / whole ingest | ${b.embed} / ${b.gate} / ${b.storeWrite} / ${b.ingest} ms | |`,
      `| stored; refused by code | ${ingest.stored}; ${
        Object.entries(ingest.refusedByCode)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      } | |`,
      `| outcome vs label (mismatches) | ${Object.entries(ingest.labelsVsOutcome)
        .map(
          ([k, v]) =>
            `${k}→${Object.entries(v)
              .map(([o, n]) => `${o}:${n}`)
              .join('+')}`,
        )
        .join(
          '; ',
        )} (${ingest.labelMismatches}) | 0 ${ingest.labelMismatches === 0 ? '✅' : '❌'} |`,
      '',
    );
  }
  if (recall) {
    const target = storeKind === 'sqlite' ? 25 : 40;
    L.push(
      `### Recall latency (up to ${recall.queries} queries per pass, n = queries timed; ms p50 / p95 / p99)`,
      '',
      '| store total | owner size | with query embedding (n) | without (n) | target (p95, 100k in one owner) |',
      '|---|---|---|---|---|',
    );
    for (const row of recall.rows) {
      const w = row.withQueryEmbedding;
      const wo = row.withoutQueryEmbedding;
      const named = row.ownerSize === 100_000 && row.totalMemories === 100_000;
      L.push(
        `| ${row.totalMemories.toLocaleString('en')} (${row.db}) | ${row.ownerSize.toLocaleString('en')} | ${w.p50} / ${w.p95} / ${w.p99} (${w.n}) | ${wo.p50} / ${wo.p95} / ${wo.p99} (${wo.n}) | ${named ? `≤ ${target} ${w.p95 <= target ? '✅' : '❌'}` : ''} |`,
      );
    }
    L.push(
      '',
      `Loaded straight into the store: ${recall.load.map((l) => `${l.db} ${l.memories.toLocaleString('en')} at ${l.perSec}/s`).join(', ')}.`,
      '',
    );
  }
  if (cascade) {
    L.push(
      '### Deletion cascade (engine.forget of the root; verified = exact count, no traces, bystanders kept)',
      '',
      '| depth × fan-out | derived | forget p50 / max ms | first run ms (warm-up) | build (store.write) ms | verified | target (p50 < 250 ms at ~1,000) |',
      '|---|---|---|---|---|---|---|',
    );
    for (const c of cascade) {
      const big = c.derived >= 900;
      L.push(
        `| ${c.depth} × ${c.fanout} | ${c.derived} | ${c.forgetMs.p50} / ${c.forgetMs.max} | ${c.firstRunMs ?? '–'} | ${Math.round(c.buildMs)} | ${c.verified ? 'yes' : 'NO'} | ${big ? (c.forgetMs.p50 < 250 ? '✅' : '❌') : ''} |`,
      );
    }
    if (cascadeWarmup > 0)
      L.push(
        '',
        `Measured after ${cascadeWarmup} warm-up round${cascadeWarmup > 1 ? 's' : ''} of every shape on this server; "first run" is the warm-up round's time, on the server as it started.`,
      );
    L.push('');
  }
  if (expiry) {
    L.push(
      '### Expiry sweep',
      '',
      `${expiry.purged} expired memories (${expiry.owners} owners, ${expiry.live} live beside them) purged in ${expiry.sweepSeconds} s: **${expiry.purgedPerSec} memories/s**; verified ${expiry.verified ? 'yes' : 'NO'}.`,
      '',
    );
  }
  L.push(
    '### Memory (MiB)',
    '',
    '| after | peak RSS | RSS now | heap used | Neo4j server peak RSS |',
    '|---|---|---|---|---|',
  );
  for (const s of ctx.memory)
    L.push(
      `| ${s.step} | ${s.maxRssMiB} | ${s.rssMiB} | ${s.heapUsedMiB} | ${s.neo4jHwmMiB ?? ''} |`,
    );
  L.push(
    '',
    `Step times (s): ${Object.entries(stepSeconds)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  );
  if (peer) {
    const { rows, table } = peer as { rows: unknown[]; table?: string[] };
    L.push('', '### Peer: mem0 side by side (bench/peer-latency.ts, SQLite, one owner)', '');
    L.push(...(table ?? ['```json', JSON.stringify(rows, null, 2), '```']));
  }
  return L.join('\n');
}
