// Recall latency side by side: KeepGraph (engine over the SQLite store) and
// mem0 OSS (mem0ai/oss, memory vector store, add infer:false, search
// threshold 0), same memories, same vectors, same embedder, one process.
//   pnpm -s tsx bench/peer-latency.ts --sizes 1000,10000,100000 --queries 100
//     [--owners 1] [--pool 1500] [--top-k 10] [--mem0-load-budget 900] [--mem0-query-budget 300]
//
// For each size N (ascending) all N memories sit in ONE owner (the target's
// "100k memories in one owner"; --owners spreads them and queries one).
// Texts come from syntheticTexts; a pool of real texts is embedded once and
// memory i gets jitter(pool[i % pool], r), the layout of perf-stores.ts. Ours
// is loaded straight into the store (store.write of benchMemory records);
// mem0 through its add(infer:false), the precomputed vectors served to its
// embedder. Sizes load incrementally: the first N texts/vectors of a larger
// run are exactly those of a smaller one, so growing both stores from the
// previous size is the same as loading afresh.
//
// Latency per query, both systems interleaved query by query so machine
// noise falls on both alike:
//  - with query embedding: every vector the recall needs comes from the model
//    (ours: the query; mem0: the query and the entity phrases it extracts
//    from it and embeds on every search);
//  - without: the same calls answered from a cache filled by an unmeasured
//    priming pass over the same queries (the perf-stores "cached Embedder").
// speedup = mem0 / ours at p50 and p95.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Caller } from '@keepgraph/core';
import { type EmbedPurpose, type Embedder, type MemoryStore } from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { benchEngine, benchMemory, jitter } from './bench-memory.ts';
import { createMem0Peer, mem0Version, type Peer } from './peers/mem0.ts';
import { percentile, rng, syntheticQueries, syntheticTexts } from './synthetic.ts';
import { machineInfo } from './machine.ts';
import { parseFlags } from './lib/flags.ts';

export interface Latency {
  p50: number;
  p95: number;
  p99: number;
}

export interface SystemRow {
  /** Memories the system holds at this size (mem0 may stop short of N). */
  loaded: number;
  /** Seconds to load this size's new memories, and the rate. */
  loadSec: number;
  loadPerSec: number;
  /** Queries timed per mode (mem0 may time fewer at large sizes, see mem0QueryBudgetSec). */
  queries: number;
  withQueryEmbedding: Latency;
  withoutQueryEmbedding: Latency;
}

export interface Row {
  size: number;
  owners: number;
  /** Memories of the queried owner. */
  ownerSize: number;
  topK: number;
  ours: SystemRow;
  /** null when mem0 was not measured at this size; `mem0Skipped` says why. */
  mem0: SystemRow | null;
  mem0Skipped?: string;
  /** mem0 / ours: how many times faster our recall is. */
  speedup: {
    withQueryEmbedding: { p50: number; p95: number };
    withoutQueryEmbedding: { p50: number; p95: number };
  } | null;
  /** Model calls the "without" pass still had to make (0: fully cached). */
  cacheMisses: number;
  loadAvg1m: number;
}

export interface SideBySideOptions {
  /** Memory counts, measured in ascending order. */
  sizes: number[];
  /** Queries timed per size and mode. */
  queries: number;
  /** Owners the memories are spread over (default 1: all in one owner). */
  owners?: number;
  /** Distinct texts embedded with the model (default 1500). */
  pool?: number;
  /** Results per recall (default 10). */
  topK?: number;
  /** Give up loading mem0 at a size whose load would exceed this (default 900 s). */
  mem0LoadBudgetSec?: number;
  /**
   * Time per pass for mem0's queries (default 300 s): when its warm-up shows
   * `queries` would take longer, only the first budget/mean (at least 10) of
   * them are timed for mem0; ours always runs all of them.
   */
  mem0QueryBudgetSec?: number;
  /** Our store; default SQLite in a temporary directory. */
  createStore?: (dir: string) => MemoryStore;
  embedder?: Embedder;
  log?: (line: string) => void;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const summary = (l: number[]): Latency => {
  const s = [...l].sort((a, b) => a - b);
  return {
    p50: round2(percentile(s, 50)),
    p95: round2(percentile(s, 95)),
    p99: round2(percentile(s, 99)),
  };
};

export async function mem0SideBySide(opts: SideBySideOptions): Promise<Row[]> {
  const sizes = [...opts.sizes].sort((a, b) => a - b);
  const maxN = sizes[sizes.length - 1] ?? 0;
  const owners = opts.owners ?? 1;
  const topK = opts.topK ?? 10;
  const budgetSec = opts.mem0LoadBudgetSec ?? 900;
  const queryBudgetSec = opts.mem0QueryBudgetSec ?? 300;
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
  // The model's own query cache off: useCache below decides, for both systems.
  const model = opts.embedder ?? (await createTransformersEmbedder({ queryCacheSize: 0 }));

  // One embedder for both systems: the model, or (useCache) a memo of it.
  const cache = new Map<string, Float32Array>();
  let useCache = false;
  let cacheMisses = 0;
  const key = (p: EmbedPurpose, t: string) => `${p}\u0000${t}`;
  const embedder: Embedder = {
    modelId: model.modelId,
    dimensions: model.dimensions,
    async embed(texts, purpose) {
      if (!useCache) return model.embed(texts, purpose);
      const missing = texts.filter((t) => !cache.has(key(purpose, t)));
      if (missing.length > 0) {
        cacheMisses += missing.length;
        const vs = await model.embed(missing, purpose);
        missing.forEach((t, i) => cache.set(key(purpose, t), vs[i]!));
      }
      return texts.map((t) => cache.get(key(purpose, t))!);
    },
  };

  const dir = mkdtempSync(join(tmpdir(), 'kg-bench-peer-'));
  const store = (opts.createStore ?? ((d) => createSqliteStore({ path: join(d, 'bench.db') })))(
    dir,
  );
  await store.init({ dimensions: embedder.dimensions });
  const engine = benchEngine(store, embedder);
  const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };
  const precomputed = new Map<string, Float32Array>();
  const peer: Peer = await createMem0Peer({ embedder, precomputed });
  log(`peer: ${peer.name}`);

  const texts = syntheticTexts(maxN);
  const poolSize = Math.min(opts.pool ?? 1500, maxN);
  const pool: Float32Array[] = [];
  let t0 = performance.now();
  for (let i = 0; i < poolSize; i += 64)
    pool.push(...(await model.embed(texts.slice(i, i + 64), 'document')));
  log(`embedded a pool of ${poolSize} texts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const r = rng(1);
  const at = new Date().toISOString();
  const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const ownerOf = (i: number) => `bench-owner-${i % owners}`;
  const target = ownerOf(0);
  const queries = syntheticQueries(opts.queries);

  let loaded = 0; // both stores hold texts[0, loaded) when mem0 is in
  let mem0Loaded = 0;
  let mem0Out: string | undefined; // why mem0 stopped being measured
  let mem0Rate = 0; // memories/s of mem0's last completed load
  let primedOurs = false;
  let primedMem0 = false;
  const rows: Row[] = [];

  for (const n of sizes) {
    // --- load [loaded, n) into ours, and into mem0 while it keeps up.
    const vectors: Float32Array[] = [];
    for (let j = loaded; j < n; j++) vectors.push(jitter(pool[j % poolSize]!, r));
    const vec = (j: number) => vectors[j - loaded]!;

    t0 = performance.now();
    const BATCH = 500;
    for (let i = loaded; i < n; i += BATCH) {
      const memories = [];
      for (let j = i; j < Math.min(n, i + BATCH); j++)
        memories.push({
          memory: benchMemory(ownerOf(j), `m-${j}`, texts[j]!, at, expiresAt),
          embedding: vec(j),
        });
      await store.write({ memories, supersede: [], sessionMessages: [], audit: [] });
      process.stderr.write(`\rours: loaded ${Math.min(n, i + BATCH)}/${n}`);
    }
    const oursLoadSec = (performance.now() - t0) / 1000;
    process.stderr.write('\n');

    let mem0LoadSec = 0;
    if (!mem0Out && mem0Rate > 0 && (n - mem0Loaded) / mem0Rate > budgetSec) {
      mem0Out = `loading ${n - mem0Loaded} more memories at the measured ${mem0Rate.toFixed(0)}/s would take ~${((n - mem0Loaded) / mem0Rate / 60).toFixed(0)} min (budget ${budgetSec / 60} min)`;
    }
    if (!mem0Out) {
      t0 = performance.now();
      const MBATCH = 1000;
      for (let i = mem0Loaded; i < n && !mem0Out; i += MBATCH) {
        const end = Math.min(n, i + MBATCH);
        // mem0 add() takes one owner per call: group the batch by owner.
        const byOwner = new Map<string, number[]>();
        for (let j = i; j < end; j++) {
          const o = ownerOf(j);
          if (!byOwner.has(o)) byOwner.set(o, []);
          byOwner.get(o)!.push(j);
        }
        for (const [o, js] of byOwner) {
          for (const j of js) precomputed.set(texts[j]!, vec(j));
          await peer.add(
            o,
            js.map((j) => ({ text: texts[j]! })),
          );
          for (const j of js) precomputed.delete(texts[j]!);
        }
        mem0Loaded = end;
        const sec = (performance.now() - t0) / 1000;
        const rate = (end - loaded) / sec;
        process.stderr.write(`\rmem0: loaded ${end}/${n} (${rate.toFixed(0)}/s)`);
        // Projected from the rate so far, once it has run long enough to mean something.
        if (sec > 20 && (n - loaded) / rate > budgetSec)
          mem0Out = `loading ${n} memories would take ~${((n - loaded) / rate / 60).toFixed(0)} min at the measured ${rate.toFixed(0)}/s (budget ${budgetSec / 60} min); stopped at ${end}`;
      }
      process.stderr.write('\n');
      mem0LoadSec = (performance.now() - t0) / 1000;
      if (!mem0Out) mem0Rate = (n - loaded) / mem0LoadSec;
    }
    if (mem0Out) log(`mem0 not measured at ${n}: ${mem0Out}`);
    const withMem0 = !mem0Out;
    loaded = n;

    // --- measure.
    const recallOurs = async (q: string) => {
      const s = performance.now();
      await engine.recall(caller, target, q, { topK });
      return performance.now() - s;
    };
    const recallMem0 = async (q: string) => {
      const s = performance.now();
      await peer.search(target, q, topK);
      return performance.now() - s;
    };
    // mem0 scans every row twice per search: at large sizes time fewer of
    // its queries (at least 10) so a pass stays within the query budget.
    const pass = async (label: string) => {
      const ours: number[] = [];
      const theirs: number[] = [];
      let mem0Queries = withMem0 ? queries.length : 0;
      for (const q of queries.slice(0, 10)) await recallOurs(q); // warm-up
      if (withMem0) {
        const warm: number[] = [];
        for (const q of queries.slice(0, 3)) warm.push(await recallMem0(q));
        const mean = warm.reduce((a, b) => a + b, 0) / warm.length / 1000;
        mem0Queries = Math.min(queries.length, Math.max(10, Math.floor(queryBudgetSec / mean)));
      }
      for (const [i, q] of queries.entries()) {
        ours.push(await recallOurs(q));
        if (i < mem0Queries) theirs.push(await recallMem0(q));
        process.stderr.write(`\r${n}: ${label} ${i + 1}/${queries.length}`);
      }
      process.stderr.write('\n');
      return { ours, theirs };
    };

    useCache = false;
    const included = await pass('with query embedding');
    useCache = true;
    // Fill the cache with every vector either system asks for on these
    // queries (the same at every size, so once per system is enough).
    for (const q of primedOurs ? [] : queries) await engine.recall(caller, target, q, { topK });
    primedOurs = true;
    if (withMem0 && !primedMem0) {
      // What mem0 embeds for a query (the query, its entity phrases) does not
      // depend on the memories: prime on an owner with none, no scan to wait for.
      for (const q of queries) await peer.search('bench-prime-empty-owner', q, topK);
      primedMem0 = true;
    }
    cacheMisses = 0;
    const excluded = await pass('without query embedding');
    useCache = false;

    const oursRow: SystemRow = {
      loaded: n,
      loadSec: round2(oursLoadSec),
      loadPerSec: Math.round((n - (rows.at(-1)?.size ?? 0)) / oursLoadSec),
      queries: queries.length,
      withQueryEmbedding: summary(included.ours),
      withoutQueryEmbedding: summary(excluded.ours),
    };
    const mem0Row: SystemRow | null = withMem0
      ? {
          loaded: mem0Loaded,
          loadSec: round2(mem0LoadSec),
          loadPerSec: Math.round((n - (rows.at(-1)?.size ?? 0)) / mem0LoadSec),
          queries: Math.min(included.theirs.length, excluded.theirs.length),
          withQueryEmbedding: summary(included.theirs),
          withoutQueryEmbedding: summary(excluded.theirs),
        }
      : null;
    const ratio = (a: number, b: number) => Math.round((a / b) * 10) / 10;
    const row: Row = {
      size: n,
      owners,
      ownerSize: Math.ceil(n / owners),
      topK,
      ours: oursRow,
      mem0: mem0Row,
      ...(mem0Out ? { mem0Skipped: mem0Out } : {}),
      speedup: mem0Row
        ? {
            withQueryEmbedding: {
              p50: ratio(mem0Row.withQueryEmbedding.p50, oursRow.withQueryEmbedding.p50),
              p95: ratio(mem0Row.withQueryEmbedding.p95, oursRow.withQueryEmbedding.p95),
            },
            withoutQueryEmbedding: {
              p50: ratio(mem0Row.withoutQueryEmbedding.p50, oursRow.withoutQueryEmbedding.p50),
              p95: ratio(mem0Row.withoutQueryEmbedding.p95, oursRow.withoutQueryEmbedding.p95),
            },
          }
        : null,
      cacheMisses,
      loadAvg1m: +loadavg()[0]!.toFixed(2),
    };
    rows.push(row);
    log(JSON.stringify(row));
  }

  await peer.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

/** A markdown table of the rows: p50 / p95 in ms, speedup = mem0 / ours. */
export function formatRows(rows: readonly Row[]): string[] {
  const lat = (l: Latency) => `${l.p50} / ${l.p95}`;
  const x = (s: { p50: number; p95: number }) => `${s.p50}× / ${s.p95}×`;
  return [
    '| memories (one owner) | ours, with query emb. | mem0, with query emb. | speedup | ours, without | mem0, without | speedup |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) =>
      r.mem0 && r.speedup
        ? `| ${r.size.toLocaleString('en')} | ${lat(r.ours.withQueryEmbedding)} | ${lat(r.mem0.withQueryEmbedding)} | ${x(r.speedup.withQueryEmbedding)} | ${lat(r.ours.withoutQueryEmbedding)} | ${lat(r.mem0.withoutQueryEmbedding)} | ${x(r.speedup.withoutQueryEmbedding)} |`
        : `| ${r.size.toLocaleString('en')} | ${lat(r.ours.withQueryEmbedding)} | not measured | | ${lat(r.ours.withoutQueryEmbedding)} | not measured | |`,
    ),
  ];
}

const isMain =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isMain) {
  const flags = parseFlags({
    sizes: '1000,10000,100000',
    queries: 100,
    owners: 1,
    pool: 1500,
    // A string: the table's title repeats it as given.
    'top-k': '10',
    'mem0-load-budget': 900,
    'mem0-query-budget': 300,
    out: 'bench/results/peer-latency.json',
  });
  const machine = machineInfo;
  const startMachine = machine();
  const started = new Date().toISOString();
  const rows = await mem0SideBySide({
    sizes: flags.sizes.split(',').map(Number),
    queries: flags.queries,
    owners: flags.owners,
    pool: flags.pool,
    topK: Number(flags['top-k']),
    mem0LoadBudgetSec: flags['mem0-load-budget'],
    mem0QueryBudgetSec: flags['mem0-query-budget'],
  });
  const result = {
    started,
    finished: new Date().toISOString(),
    machineAtStart: startMachine,
    machineAtEnd: machine(),
    ours: 'KeepGraph engine.recall over @keepgraph/store-sqlite',
    peer: `mem0ai@${mem0Version()} (mem0ai/oss, memory vector store :memory:, add infer:false, search threshold 0, langchain embedder over the same model)`,
    rows,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(flags.out, JSON.stringify(result, null, 2) + '\n');
  console.log(
    `recall latency p50 / p95 in ms, top ${flags['top-k']}; speedup = mem0 / ours (${result.peer})`,
  );
  for (const l of formatRows(rows)) console.log(l);
  console.log(
    `machine: ${startMachine.cpus} × ${startMachine.cpu}, ${startMachine.memGiB} GiB, node ${startMachine.node}, load avg ${startMachine.loadAvg.join(' ')} → ${result.machineAtEnd.loadAvg.join(' ')}`,
  );
}
