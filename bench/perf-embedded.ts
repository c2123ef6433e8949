// Ingest rate and recall latency on the embedded store, through the engine's
// normal write and recall paths with the real embedding model.
//   pnpm tsx bench/perf-embedded.ts [--n 10000] [--queries 200] [--batch 64] [--model ID]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Caller } from '@keepgraph/core';
import { createTransformersEmbedder, type TransformersModelId } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { syntheticQueries, syntheticTexts } from './synthetic.ts';
import { machineInfo } from './machine.ts';
import { benchEngine } from './bench-memory.ts';
import { parseFlags } from './lib/flags.ts';
import { percentilesMs, timeRecalls } from './lib/recall-latency.ts';

const flags = parseFlags({ n: 10_000, queries: 200, batch: 64 }, ['model']);
const { n, batch } = flags;
const nq = flags.queries;

const dir = mkdtempSync(join(tmpdir(), 'kg-bench-'));
// The query cache off: every recall measured pays its embedding.
const embedder = await createTransformersEmbedder({
  queryCacheSize: 0,
  ...(flags.model ? { modelId: flags.model as TransformersModelId } : {}),
});
const store = createSqliteStore({ path: join(dir, 'bench.db') });
await store.init({ dimensions: embedder.dimensions });
const engine = benchEngine(store, embedder);
const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };
const owner = 'bench-owner';
const texts = syntheticTexts(n);

// Raw embedder throughput on the same texts, same batch size: the ceiling for ingest.
const rawSample = texts.slice(0, Math.min(n, 2000));
let t0 = performance.now();
for (let i = 0; i < rawSample.length; i += batch)
  await embedder.embed(rawSample.slice(i, i + batch), 'document');
const rawRate = rawSample.length / ((performance.now() - t0) / 1000);
console.error(`raw embedder: ${rawRate.toFixed(0)} texts/s (${rawSample.length} texts)`);

t0 = performance.now();
for (let i = 0; i < n; i += batch) {
  const items = texts.slice(i, i + batch).map((text, j) => ({
    kind: 'episode' as const,
    text,
    origin: { sessionId: `s${Math.floor((i + j) / 50)}`, turn: String(i + j) },
  }));
  const r = await engine.rememberMany(caller, owner, items);
  if (r.failed.length) throw new Error(`refused: ${JSON.stringify(r.failed[0])}`);
  if ((i / batch) % 20 === 0) process.stderr.write(`\ringest ${i + items.length}/${n}`);
}
const ingestSec = (performance.now() - t0) / 1000;
const ingestRate = n / ingestSec;
console.error(`\ningest: ${ingestRate.toFixed(0)} memories/s (${n} in ${ingestSec.toFixed(1)} s)`);

const queries = syntheticQueries(nq);
const lat = await timeRecalls(queries, (q) => engine.recall(caller, owner, q));
const result = {
  machine: machineInfo(),
  model: embedder.modelId,
  memories: n,
  batch,
  rawEmbedderPerSec: Math.round(rawRate),
  ingestPerSec: Math.round(ingestRate),
  ingestShareOfRaw: +(ingestRate / rawRate).toFixed(2),
  recallMs: { ...percentilesMs(lat), queries: nq },
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/perf-embedded-${n}.json`, JSON.stringify(result, null, 2));
await store.close();
rmSync(dir, { recursive: true, force: true });
