// Fills a store with other owners' memories, so a recall benchmark run into
// it afterwards (`keepgraph --data DIR bench recall ...`, or with
// `--store neo4j` on the same NEO4J_URI) ranks inside a multi-tenant store,
// as a server does, instead of a store that holds only the benchmark's own
// owners.
//   pnpm -s tsx bench/fill-owners.ts --data DIR [--owners 1000] [--per-owner 100]
//   NEO4J_URI=bolt://... pnpm -s tsx bench/fill-owners.ts --store neo4j [...]
// The memories are workload episodes and facts (bench/workload) written
// straight into the store: text, entities and relations, no vectors (vector
// search is per owner and cannot see them; full text and entity counts can).
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { MemoryStore, MemoryWrite } from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { workloadMemory, writeInBatches } from './bench-memory.ts';
import { generateWorkload } from './workload/generator.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    store: { type: 'string', default: 'sqlite' },
    owners: { type: 'string', default: '1000' },
    'per-owner': { type: 'string', default: '100' },
  },
});
if (values.store === 'sqlite' && !values.data)
  throw new Error('--data DIR is required (the folder keepgraph --data uses)');
if (values.store === 'neo4j' && !process.env.NEO4J_URI)
  throw new Error('--store neo4j needs NEO4J_URI (the server the benchmark will use)');
const owners = Number(values.owners);
const perOwner = Number(values['per-owner']);
const store: MemoryStore =
  values.store === 'neo4j'
    ? createNeo4jStore({ uri: process.env.NEO4J_URI! })
    : createSqliteStore({ path: join(resolve(values.data!), 'keepgraph.db') });
// The dimension of the store's vectors is the shipped model's, as `keepgraph` opens it.
await store.init({ dimensions: (await createTransformersEmbedder()).dimensions });
const at = new Date().toISOString();
const expiresAt = new Date(Date.now() + 365 * 86_400_000).toISOString();
const t0 = performance.now();
let chunk: MemoryWrite[] = [];
let written = 0;
try {
  for (const rec of generateWorkload({
    owners,
    memories: owners * perOwner,
    seed: 17,
    ownerSizes: 'fixed',
    ownerPrefix: 'filler-',
    secretRate: 0,
    personalRate: 0,
  })) {
    if (rec.expect !== 'stored') continue;
    chunk.push({ memory: workloadMemory(rec, at, expiresAt), embedding: null });
    if (chunk.length === 5_000) {
      await writeInBatches(store, chunk);
      written += chunk.length;
      chunk = [];
      process.stderr.write(`\rwritten ${written}`);
    }
  }
  await writeInBatches(store, chunk);
  written += chunk.length;
} finally {
  await store.close();
}
console.error(
  `\nfilled ${values.store === 'neo4j' ? process.env.NEO4J_URI : values.data}: ${written} memories of ${owners} other owners in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
