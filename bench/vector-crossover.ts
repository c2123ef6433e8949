// Owner-scoped vector search on Neo4j: exact scoring of the owner's own
// memories against the global vector index with owner-proportional
// oversampling, by owner size, in one database holding `--total` memories.
// Reports latency (p50/p95) and the index path's recall@10 against exact.
//   NEO4J_URI=... pnpm tsx bench/vector-crossover.ts [--total 100000] [--sizes 100,1000,3000,10000,30000]
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { benchMemory, jitter } from './bench-memory.ts';
import { percentile, rng, syntheticQueries, syntheticTexts } from './synthetic.ts';
import { machineInfo } from './machine.ts';

const { values } = parseArgs({
  options: {
    total: { type: 'string', default: '100000' },
    sizes: { type: 'string', default: '100,1000,3000,10000,30000' },
    queries: { type: 'string', default: '40' },
  },
});
const total = Number(values.total);
const sizes = values.sizes!.split(',').map(Number);
const nq = Number(values.queries);
const uri = process.env.NEO4J_URI;
if (!uri) throw new Error('set NEO4J_URI (bash scripts/neo4j-test-server.sh start)');

const embedder = await createTransformersEmbedder();
const exact = createNeo4jStore({ uri, exactSearchThreshold: Number.MAX_SAFE_INTEGER });
const indexed = createNeo4jStore({ uri, exactSearchThreshold: 0 });
await exact.init({ dimensions: embedder.dimensions });
await indexed.init({ dimensions: embedder.dimensions });

const poolTexts = syntheticTexts(1500, 99);
const pool: Float32Array[] = [];
for (let i = 0; i < poolTexts.length; i += 64)
  pool.push(...(await embedder.embed(poolTexts.slice(i, i + 64), 'document')));

// Owners of the given sizes plus one filler owner up to `total`.
const run = Date.now().toString(36);
const plan: [string, number][] = sizes.map((n) => [`xover-${run}-${n}`, n]);
const filler = total - sizes.reduce((a, b) => a + b, 0);
if (filler > 0) plan.push([`xover-${run}-filler`, filler]);
const r = rng(3);
const at = new Date().toISOString();
const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
let loaded = 0;
const t0 = performance.now();
for (const [owner, n] of plan) {
  for (let i = 0; i < n; i += 500) {
    const memories = [];
    for (let j = i; j < Math.min(n, i + 500); j++) {
      const k = Math.floor(r() * pool.length);
      memories.push({
        memory: benchMemory(owner, `${owner}-${j}`, `${poolTexts[k]} #${j}`, at, expiresAt),
        embedding: jitter(pool[k]!, r),
      });
    }
    await exact.write({ memories, supersede: [], sessionMessages: [], audit: [] });
    loaded += memories.length;
    process.stderr.write(`\rloaded ${loaded}/${total}`);
  }
}
console.error(`\nloaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

const qvecs = await embedder.embed(syntheticQueries(nq, 11), 'query');
const now = new Date().toISOString();
const rows = [];
for (const [owner, n] of plan.filter(([o]) => !o.endsWith('filler'))) {
  const times = { exact: [] as number[], index: [] as number[] };
  let overlap = 0;
  for (const v of qvecs) {
    let s = performance.now();
    const e = await exact.searchVector(owner, v, { limit: 10, now });
    times.exact.push(performance.now() - s);
    s = performance.now();
    const x = await indexed.searchVector(owner, v, { limit: 10, now });
    times.index.push(performance.now() - s);
    const want = new Set(e.map((h) => h.id));
    overlap += x.filter((h) => want.has(h.id)).length / Math.max(1, want.size);
  }
  times.exact.sort((a, b) => a - b);
  times.index.sort((a, b) => a - b);
  const row = {
    ownerSize: n,
    exactP50: +percentile(times.exact, 50).toFixed(1),
    exactP95: +percentile(times.exact, 95).toFixed(1),
    indexP50: +percentile(times.index, 50).toFixed(1),
    indexP95: +percentile(times.index, 95).toFixed(1),
    indexRecallAt10: +(overlap / qvecs.length).toFixed(3),
  };
  rows.push(row);
  console.error(JSON.stringify(row));
}
const result = {
  machine: machineInfo(),
  totalMemories: total,
  queries: nq,
  rows,
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/vector-crossover-${total}.json`, JSON.stringify(result, null, 2));
await exact.close();
await indexed.close();
