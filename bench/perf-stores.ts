// Recall latency on SQLite and Neo4j side by side: N memories spread over
// `owners` owners (one owner among many is queried), recall through the
// engine with the real model, query embedding included and excluded.
//   pnpm tsx bench/perf-stores.ts --store sqlite|neo4j --total 10000 [--owners 100] [--queries 200]
// Neo4j: NEO4J_URI (e.g. from `bash scripts/neo4j-test-server.sh start`); the
// database should be empty (the script's default data dir is wiped at start).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Caller } from '@keepgraph/core';
import { type Embedder, type MemoryStore } from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { benchEngine, benchMemory, jitter } from './bench-memory.ts';
import { rng, syntheticQueries, syntheticTexts } from './synthetic.ts';
import { parseFlags } from './lib/flags.ts';
import { percentilesMs, timeRecalls } from './lib/recall-latency.ts';
import { machineInfo } from './machine.ts';

const flags = parseFlags({ store: 'sqlite', total: 10_000, owners: 100, queries: 200, pool: 1500 });
const { total, owners } = flags;
const nq = flags.queries;
const poolSize = Math.min(flags.pool, total);

// The query cache off: every recall measured pays its embedding.
const embedder = await createTransformersEmbedder({ queryCacheSize: 0 });
const dir = mkdtempSync(join(tmpdir(), 'kg-bench-stores-'));
let store: MemoryStore;
if (flags.store === 'sqlite') store = createSqliteStore({ path: join(dir, 'bench.db') });
else if (flags.store === 'neo4j') {
  if (!process.env.NEO4J_URI)
    throw new Error('set NEO4J_URI (bash scripts/neo4j-test-server.sh start)');
  store = createNeo4jStore({ uri: process.env.NEO4J_URI });
} else throw new Error('--store must be sqlite or neo4j');
await store.init({ dimensions: embedder.dimensions });

// Embed a pool of distinct texts once; every memory's vector is a small
// jitter of one pool vector, so the index sees realistic clusters.
const texts = syntheticTexts(total);
const pool: Float32Array[] = [];
let t0 = performance.now();
for (let i = 0; i < poolSize; i += 64)
  pool.push(...(await embedder.embed(texts.slice(i, i + 64), 'document')));
console.error(
  `embedded a pool of ${poolSize} texts in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

const r = rng(1);
const at = new Date().toISOString();
const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
const ownerOf = (i: number) => `bench-owner-${i % owners}`;
t0 = performance.now();
const BATCH = 500;
for (let i = 0; i < total; i += BATCH) {
  const memories = [];
  for (let j = i; j < Math.min(total, i + BATCH); j++) {
    memories.push({
      memory: benchMemory(ownerOf(j), `m-${j}`, texts[j]!, at, expiresAt),
      embedding: jitter(pool[j % poolSize]!, r),
    });
  }
  await store.write({ memories, supersede: [], sessionMessages: [], audit: [] });
  process.stderr.write(`\rloaded ${Math.min(total, i + BATCH)}/${total}`);
}
const loadSec = (performance.now() - t0) / 1000;
console.error(
  `\nloaded ${total} memories in ${loadSec.toFixed(1)} s (${(total / loadSec).toFixed(0)}/s)`,
);

const engine = benchEngine(store, embedder);
const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };
const target = ownerOf(7);
const queries = syntheticQueries(nq);

// Query embeddings computed up front, so "excluded" measures the rest alone.
const qvecs = await embedder.embed(queries, 'query');
const cached: Embedder = {
  modelId: embedder.modelId,
  dimensions: embedder.dimensions,
  embed: async (t) =>
    t.map((q) => qvecs[queries.indexOf(q)] ?? new Float32Array(embedder.dimensions)),
};
const engineNoEmbed = benchEngine(store, cached);

const measure = (e: typeof engine) => timeRecalls(queries, (q) => e.recall(caller, target, q));
const withEmbed = await measure(engine);
const withoutEmbed = await measure(engineNoEmbed);
const result = {
  machine: machineInfo(),
  store: flags.store,
  total,
  owners,
  ownerSize: Math.ceil(total / owners),
  queries: nq,
  loadPerSec: Math.round(total / loadSec),
  recallMsWithQueryEmbedding: percentilesMs(withEmbed),
  recallMsWithoutQueryEmbedding: percentilesMs(withoutEmbed),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/perf-stores-${flags.store}-${total}.json`,
  JSON.stringify(result, null, 2),
);
await store.close();
rmSync(dir, { recursive: true, force: true });
