// The SQLite store's in-memory vector index against sqlite-vec's exact scan,
// on one owner of `--size` memories (the real model's vectors of a pool of
// texts, jittered, as the other store benches load them): the index's build
// time and bytes, searchVector p50 / p95 through each path (the same store
// file, two store objects: one with the index for every owner, one with
// none), recall@10 of the index against the exact scan, and the time to
// forget 1,000 memories, checking each forgotten vector left the index.
//   pnpm -s tsx bench/vector-index.ts [--size 100000] [--queries 200]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { benchMemory, jitter } from './bench-memory.ts';
import { parseFlags } from './lib/flags.ts';
import { machineInfo } from './machine.ts';
import { percentile, rng, syntheticQueries, syntheticTexts } from './synthetic.ts';

const flags = parseFlags({ size: 100_000, queries: 200, forget: 1000 });
const dir = mkdtempSync(join(tmpdir(), 'kg-vector-index-'));
const path = join(dir, 'kg.db');
const embedder = await createTransformersEmbedder();
const owner = 'vector-index-owner';
const log = (s: string) => process.stderr.write(`[vector-index] ${s}\n`);

const poolTexts = syntheticTexts(1000, 99);
const pool: Float32Array[] = [];
for (let i = 0; i < poolTexts.length; i += 64)
  pool.push(...(await embedder.embed(poolTexts.slice(i, i + 64), 'document')));
const queries = syntheticQueries(flags.queries);
const qv: Float32Array[] = [];
for (const q of queries) qv.push((await embedder.embed([q], 'query'))[0]!);

const exact = createSqliteStore({ path, vectorIndexMinVectors: Number.MAX_SAFE_INTEGER });
await exact.init({ dimensions: embedder.dimensions });
const r = rng(3);
const at = new Date().toISOString();
const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
const t0 = performance.now();
for (let i = 0; i < flags.size; i += 500) {
  const memories = [];
  for (let j = i; j < Math.min(flags.size, i + 500); j++) {
    const k = Math.floor(r() * pool.length);
    memories.push({
      memory: benchMemory(owner, `m-${j}`, `${poolTexts[k]} #${j}`, at, expiresAt),
      embedding: jitter(pool[k]!, r),
    });
  }
  await exact.write({ memories, supersede: [], sessionMessages: [], audit: [] });
}
log(`loaded ${flags.size} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const indexed = createSqliteStore({ path, vectorIndexMinVectors: 0 });
await indexed.init({ dimensions: embedder.dimensions });
const now = new Date().toISOString();
const opts = { limit: 50, now };
const b0 = performance.now();
await indexed.searchVector(owner, qv[0]!, opts);
const buildMs = performance.now() - b0;
const stats = await indexed.vectorIndexStats();
log(`index built in ${buildMs.toFixed(0)} ms, ${(stats.bytes / 2 ** 20).toFixed(1)} MiB of arrays`);

const lat = { exact: [] as number[], index: [] as number[] };
let found = 0;
for (let i = 0; i < qv.length; i++) {
  // Interleaved, so both paths see the same machine.
  let s = performance.now();
  const e = await exact.searchVector(owner, qv[i]!, opts);
  lat.exact.push(performance.now() - s);
  s = performance.now();
  const x = await indexed.searchVector(owner, qv[i]!, opts);
  lat.index.push(performance.now() - s);
  const got = new Set(x.slice(0, 10).map((h) => h.id));
  found += e.slice(0, 10).filter((h) => got.has(h.id)).length;
}
const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: +percentile(s, 50).toFixed(2), p95: +percentile(s, 95).toFixed(2) };
};

// Forget 1,000 through the indexed store, one cascade of 1,000 roots.
const ids = Array.from(
  { length: flags.forget },
  (_, i) => `m-${i * Math.floor(flags.size / flags.forget)}`,
);
const held = (await indexed.heldVectorIndex(owner))!;
const stored = ids.slice(0, 20).map((id) => Buffer.from(held.storedVector(id)!.buffer));
const f0 = performance.now();
await indexed.deleteCascade({ ownerId: owner, rootIds: ids, reason: 'forget', at: now, audit: [] });
const forgetMs = performance.now() - f0;
const leftInIndex = ids.filter((id) => held.has(id)).length;
const bytesLeft = stored.filter((b) =>
  held.rawBuffers().some((raw) => Buffer.from(raw).indexOf(b) >= 0),
).length;
const stillFound = (await indexed.searchVector(owner, qv[0]!, { limit: 4000, now })).filter((h) =>
  ids.includes(h.id),
).length;

const result = {
  machine: machineInfo(),
  size: flags.size,
  queries: qv.length,
  buildMs: Math.round(buildMs),
  indexBytes: stats.bytes,
  searchVectorMs: { exact: summary(lat.exact), index: summary(lat.index) },
  recallAt10: +(found / (qv.length * 10)).toFixed(4),
  forget: { memories: flags.forget, ms: Math.round(forgetMs), leftInIndex, bytesLeft, stillFound },
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/vector-index-${flags.size}.json`,
  `${JSON.stringify(result, null, 2)}\n`,
);
await exact.close();
await indexed.close();
rmSync(dir, { recursive: true, force: true });
