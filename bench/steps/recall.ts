// Step b: recall latency p50/p95/p99 through engine.recall, with the query
// embedding included (real model) and excluded (query vectors computed up
// front), for owners of 100 to 100k memories in stores of 10k to 1M.
//
// Memories are workload records (bench/workload, no secrets) loaded straight
// into the store with vectors jittered from a pool of real embeddings (as
// bench/perf-stores.ts does): the model embeds ~100 texts/s, which would make
// 100k+ infeasible. Two databases grow in phases:
//   mixed:  target owners of 100, 1k, 10k (and 100k for size large) among
//           filler owners of 1k, measured at each total (10k, 100k, 1M; the
//           1M phase fills with owners of 80, so that store holds about 10k
//           owners, as many as issue 17 asks of it);
//   single: one owner, measured at 10k and 100k (the "100k memories in one
//           owner" target; 1M in one owner is past the default policy cap).
import type { Caller, Engine } from '@keepgraph/core';
import type { Embedder, MemoryStore } from '@keepgraph/core/ports';
import { jitter, workloadMemory } from '../bench-memory.ts';
import { rng, syntheticQueries } from '../synthetic.ts';
import { generateWorkload, type WorkloadRecord } from '../workload/generator.ts';
import type { BenchContext } from './context.ts';
import { embedAll, latencySummary, type OpenStore } from './context.ts';

export interface RecallRow {
  db: 'mixed' | 'single';
  totalMemories: number;
  ownerSize: number;
  owners: number;
  withQueryEmbedding: ReturnType<typeof latencySummary>;
  withoutQueryEmbedding: ReturnType<typeof latencySummary>;
}

export interface RecallResult {
  queries: number;
  load: { db: string; memories: number; seconds: number; perSec: number }[];
  rows: RecallRow[];
}

interface Phase {
  total: number;
  /** Owners to add in this phase: [name, size]; fillers make up the rest. */
  targets: [string, number][];
  /** Memories per filler owner (default 1,000). */
  fillerSize?: number;
  /** Owner sizes to measure at this total. */
  measure: number[];
}

const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };
const LOAD_BATCH = 500;

/** Streams one owner's records (workload, no secrets or personal data) into the store. */
class OwnerLoader {
  private readonly it: Iterator<WorkloadRecord>;
  loaded = 0;
  constructor(
    readonly ownerId: string,
    readonly size: number,
    seed: number,
  ) {
    this.it = generateWorkload({
      owners: 1,
      memories: size,
      seed,
      ownerName: () => ownerId,
      secretRate: 0,
      personalRate: 0,
    })[Symbol.iterator]();
  }
  /** Up to n more records. */
  take(n: number): WorkloadRecord[] {
    const out: WorkloadRecord[] = [];
    while (out.length < n) {
      const x = this.it.next();
      if (x.done) break;
      out.push(x.value);
    }
    this.loaded += out.length;
    return out;
  }
}

export async function recallStep(
  ctx: BenchContext,
  o: {
    size: 'small' | 'large';
    queries: number;
    pool: Float32Array[];
    seed: number;
    /** Time budget per pass (one owner, one mode), ms. */
    budgetMs: number;
  },
): Promise<RecallResult> {
  const { embedder } = ctx;
  const queries = syntheticQueries(o.queries);
  const qvecs = await embedAll(embedder, queries, 'query');
  const qIndex = new Map(queries.map((q, i) => [q, i]));
  const cached: Embedder = {
    modelId: embedder.modelId,
    dimensions: embedder.dimensions,
    embed: async (texts) =>
      texts.map((t) => qvecs[qIndex.get(t) ?? -1] ?? new Float32Array(embedder.dimensions)),
  };
  const r = rng(o.seed);
  const at = new Date().toISOString();
  const expiresAt = new Date(Date.now() + 60 * 86_400_000).toISOString();
  const result: RecallResult = { queries: o.queries, load: [], rows: [] };
  let seed = o.seed * 1000;

  async function load(db: OpenStore, loader: OwnerLoader, n: number, label: string) {
    const t0 = performance.now();
    let left = n;
    while (left > 0) {
      const recs = loader.take(Math.min(LOAD_BATCH, left));
      if (recs.length === 0) break;
      left -= recs.length;
      await db.store.write({
        memories: recs.map((rec) => ({
          memory: workloadMemory(rec, at, expiresAt),
          embedding: jitter(o.pool[rec.seq % o.pool.length]!, r),
        })),
        supersede: [],
        sessionMessages: [],
        audit: [],
      });
      ctx.progress(`${label}: ${loader.ownerId} ${loader.loaded}/${loader.size}`);
    }
    return (performance.now() - t0) / 1000;
  }

  async function measure(
    engine: Engine,
    engineNoEmbed: Engine,
    owner: string,
  ): Promise<Pick<RecallRow, 'withQueryEmbedding' | 'withoutQueryEmbedding'>> {
    const run = async (e: Engine) => {
      // Warm-up, which also sizes the pass: when all queries would take
      // longer than the budget, only the first budget/mean (at least 30) are timed.
      const w0 = performance.now();
      for (const q of queries.slice(0, 10)) await e.recall(caller, owner, q);
      const mean = (performance.now() - w0) / 10;
      const n = Math.min(queries.length, Math.max(30, Math.floor(o.budgetMs / mean)));
      const lat: number[] = [];
      for (const q of queries.slice(0, n)) {
        const s = performance.now();
        await e.recall(caller, owner, q);
        lat.push(performance.now() - s);
      }
      return latencySummary(lat);
    };
    return {
      withQueryEmbedding: await run(engine),
      withoutQueryEmbedding: await run(engineNoEmbed),
    };
  }

  async function growAndMeasure(dbName: 'mixed' | 'single', phases: Phase[]) {
    const db = await ctx.freshStore(`recall-${dbName}`);
    const store: MemoryStore = db.store;
    const engine = ctx.engine(store);
    const engineNoEmbed = ctx.engine(store, { embedder: cached });
    const owners = new Map<string, OwnerLoader>();
    let total = 0;
    let loadSec = 0;
    let fillers = 0;
    for (const phase of phases) {
      ctx.log(`recall/${dbName}: loading to ${phase.total} memories`);
      // Grow the targets (creating them the first time) to their size.
      for (const [name, size] of phase.targets) {
        const id = db.ownerPrefix + name;
        let l = owners.get(id);
        if (!l) owners.set(id, (l = new OwnerLoader(id, size, ++seed)));
        const n = Math.min(size - l.loaded, phase.total - total);
        if (n <= 0) continue;
        loadSec += await load(db, l, n, `recall/${dbName}`);
        total += n;
      }
      while (total < phase.total) {
        const id = `${db.ownerPrefix}filler-${fillers++}`;
        const l = new OwnerLoader(
          id,
          Math.min(phase.fillerSize ?? 1000, phase.total - total),
          ++seed,
        );
        loadSec += await load(db, l, l.size, `recall/${dbName}`);
        total += l.size;
      }
      ctx.log(
        `recall/${dbName}: ${total} memories loaded (${(total / loadSec).toFixed(0)}/s so far)`,
      );
      for (const size of phase.measure) {
        const target = [...owners.values()].find((l) => l.loaded === size);
        if (!target) throw new Error(`no owner of ${size} in ${dbName} at ${total}`);
        ctx.log(`recall/${dbName}: ${total} total, owner of ${size}: ${o.queries} queries x2`);
        const m = await measure(engine, engineNoEmbed, target.ownerId);
        ctx.log(
          `recall/${dbName}: p50/p95/p99 ${m.withQueryEmbedding.p50}/${m.withQueryEmbedding.p95}/${m.withQueryEmbedding.p99} ms with embedding, ${m.withoutQueryEmbedding.p50}/${m.withoutQueryEmbedding.p95}/${m.withoutQueryEmbedding.p99} without`,
        );
        result.rows.push({
          db: dbName,
          totalMemories: total,
          ownerSize: size,
          owners: owners.size + fillers,
          ...m,
        });
      }
    }
    result.load.push({
      db: dbName,
      memories: total,
      seconds: +loadSec.toFixed(1),
      perSec: Math.round(total / loadSec),
    });
    ctx.snapshot(`recall-${dbName}`);
    await db.close();
  }

  const mixed: Phase[] = [
    {
      total: 10_000,
      targets: [
        ['owner-100', 100],
        ['owner-1k', 1_000],
      ],
      measure: [100, 1_000],
    },
    { total: 100_000, targets: [['owner-10k', 10_000]], measure: [100, 1_000, 10_000] },
  ];
  if (o.size === 'large')
    mixed.push({
      total: 1_000_000,
      targets: [['owner-100k', 100_000]],
      fillerSize: 80,
      measure: [100, 1_000, 10_000, 100_000],
    });
  const single: Phase[] = [
    { total: 10_000, targets: [['owner-single', 100_000]], measure: [10_000] },
    { total: 100_000, targets: [['owner-single', 100_000]], measure: [100_000] },
  ];
  await growAndMeasure('mixed', mixed);
  await growAndMeasure('single', single);
  return result;
}
