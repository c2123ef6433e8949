// Where one recall's time goes, at one owner of N memories: every store call
// engine.recall makes is timed (a timing wrapper around the store), and the
// query embedding too, over the same queries as `pnpm bench`'s recall step.
//   pnpm -s tsx bench/recall-breakdown.ts [--store sqlite|neo4j] [--size 100000]
//        [--queries 200] [--keep DIR] [--warmup N]
// --keep DIR: SQLite keeps the loaded database in DIR/breakdown-<size>.db and
// reuses it on the next run with the same size (loading 100k takes ~20 s);
// Neo4j (with NEO4J_URI) keeps the owner breakdown-<size> on that server.
// --warmup N: unmeasured recalls first (queries drawn with another seed;
// default 10, and 1,000 on Neo4j: a server that has just started is slow until
// its JIT has compiled the read paths, p95 about 100 ms at 100k for its first
// few hundred recalls, and a Neo4j in service has long been running).
// Prints a table of p50 / p95 per call, and the recall's own, on stdout.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Caller } from '@keepgraph/core';
import type { Embedder, MemoryStore, MemoryWrite } from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { jitter, workloadMemory, writeInBatches } from './bench-memory.ts';
import { BenchContext, embedAll, latencySummary, type StoreKind } from './steps/context.ts';
import { parseFlags } from './lib/flags.ts';
import { machineInfo } from './machine.ts';
import { rng, syntheticQueries, syntheticTexts } from './synthetic.ts';
import { generateWorkload } from './workload/generator.ts';

const flags = parseFlags(
  {
    store: 'sqlite',
    size: 100_000,
    queries: 200,
    'neo4j-port': 17695,
    /** Run the timed calls one at a time (each call's own cost, not its wait for the others). */
    serial: false,
  },
  [
    'warmup',
    'keep',
    /** The model's intra-op threads (the embedder's default when not given). */
    'threads',
    /** The intra-op threads of the one-text query session (the embedder's default when not given). */
    'query-threads',
  ],
);
const storeKind = flags.store as StoreKind;
const size = flags.size;
const nQueries = flags.queries;
const warmup = Number(flags.warmup ?? (storeKind === 'neo4j' ? 1000 : 10));
if (!Number.isInteger(warmup) || warmup < 0) throw new Error('--warmup wants a whole number');
const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };
const LOAD_CHUNK = 5_000;

// The query cache off: every recall measured pays its embedding (the
// synthetic queries repeat).
const embedder = await createTransformersEmbedder({
  queryCacheSize: 0,
  ...(flags.threads ? { threads: Number(flags.threads) } : {}),
  ...(flags['query-threads'] ? { queryThreads: Number(flags['query-threads']) } : {}),
});
const ctx = new BenchContext(storeKind, embedder, {
  neo4jPort: flags['neo4j-port'],
  neo4jUri: process.env.NEO4J_URI,
});

/** Wall time of every call, by store method, while `recording` is on. */
const calls = new Map<string, number[]>();
let recording = false;
/** The calls of the recall being timed, for the slowest ones' listing. */
let perRecall: string[] = [];
let queue: Promise<void> = Promise.resolve();
function timed<T extends object>(target: T, prefix = ''): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      const v = Reflect.get(t, key, receiver);
      if (typeof v !== 'function') return v;
      return async (...args: unknown[]) => {
        let release = () => {};
        if (flags.serial) {
          const before = queue;
          queue = new Promise<void>((r) => (release = r));
          await before;
        }
        const t0 = performance.now();
        try {
          return await v.apply(t, args);
        } finally {
          if (recording) {
            const name = prefix + String(key);
            const ms = performance.now() - t0;
            calls.set(name, [...(calls.get(name) ?? []), ms]);
            perRecall.push(`${name} ${ms.toFixed(1)}`);
          }
          release();
        }
      };
    },
  });
}

async function openStore(): Promise<{ store: MemoryStore; owner: string; close(): Promise<void> }> {
  if (storeKind === 'sqlite' && flags.keep) {
    const dir = resolve(flags.keep);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `breakdown-${size}.db`);
    const fresh = !existsSync(path);
    const store = createSqliteStore({ path });
    await store.init({ dimensions: embedder.dimensions });
    if (fresh) await load(store, 'single');
    return { store, owner: 'single', close: () => store.close() };
  }
  if (storeKind === 'neo4j' && flags.keep && process.env.NEO4J_URI) {
    const store = createNeo4jStore({ uri: process.env.NEO4J_URI });
    await store.init({ dimensions: embedder.dimensions });
    const owner = `breakdown-${size}`;
    if ((await store.countMemories(owner)) < size) await load(store, owner);
    return { store, owner, close: () => store.close() };
  }
  const db = await ctx.freshStore('breakdown');
  const owner = `${db.ownerPrefix}single`;
  await load(db.store, owner);
  return { store: db.store, owner, close: () => db.close() };
}

async function load(store: MemoryStore, owner: string): Promise<void> {
  const pool = await embedAll(embedder, syntheticTexts(1000, 7), 'document');
  const r = rng(11);
  const at = new Date().toISOString();
  const expiresAt = new Date(Date.now() + 60 * 86_400_000).toISOString();
  const t0 = performance.now();
  // Written a chunk at a time, so a large owner's vectors are never all held at once.
  let chunk: MemoryWrite[] = [];
  for (const rec of generateWorkload({
    owners: 1,
    memories: size,
    seed: 5,
    ownerName: () => owner,
    secretRate: 0,
    personalRate: 0,
  })) {
    chunk.push({
      memory: workloadMemory(rec, at, expiresAt),
      embedding: jitter(pool[rec.seq % pool.length]!, r),
    });
    if (chunk.length === LOAD_CHUNK) {
      await writeInBatches(store, chunk);
      chunk = [];
      ctx.progress(`loaded ${rec.seq + 1}/${size}`);
    }
  }
  await writeInBatches(store, chunk);
  ctx.log(`loaded ${size} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const { store, owner, close } = await openStore();
try {
  const queries = syntheticQueries(nQueries);
  const timedEmbedder: Embedder = timed(embedder, 'embed:');
  const engine = ctx.engine(timed(store), { embedder: timedEmbedder });
  for (const [i, q] of syntheticQueries(warmup, 8).entries()) {
    await engine.recall(caller, owner, q);
    if ((i + 1) % 100 === 0) ctx.progress(`warm-up ${i + 1}/${warmup} recalls`);
  }
  const total: number[] = [];
  const each: { ms: number; query: string; calls: string[] }[] = [];
  recording = true;
  for (const q of queries) {
    perRecall = [];
    const t0 = performance.now();
    await engine.recall(caller, owner, q);
    total.push(performance.now() - t0);
    each.push({ ms: total.at(-1)!, query: q, calls: perRecall });
  }
  recording = false;
  const rows: [string, ReturnType<typeof latencySummary>][] = [
    ['recall', latencySummary(total)],
    ...[...calls.entries()].map(([k, v]): [string, ReturnType<typeof latencySummary>] => [
      k,
      latencySummary(v),
    ]),
  ];
  console.log(
    `# recall breakdown: ${storeKind}, one owner of ${size}, ${nQueries} queries after ${warmup} unmeasured`,
  );
  console.log(JSON.stringify(machineInfo()));
  console.log('| call | n | p50 | p95 | mean |\n|---|---|---|---|---|');
  for (const [k, s] of rows) console.log(`| ${k} | ${s.n} | ${s.p50} | ${s.p95} | ${s.mean} |`);
  console.log('\nslowest recalls (ms, then each call):');
  for (const r of each.sort((a, b) => b.ms - a.ms).slice(0, 10))
    console.log(`- ${r.ms.toFixed(1)} "${r.query}": ${r.calls.join(', ')}`);
} finally {
  await close();
  await ctx.close();
}
