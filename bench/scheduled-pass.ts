// What one tick of the hourly reflection and compaction schedules costs at
// many owners, as `keepgraph start` runs it: SQLite, the in-process runner,
// the default policy and the real model. Owners are loaded straight into the
// store as consolidated owners (episodes already reflected; the real model's
// vectors for a pool of texts, jittered), then four ticks are timed from
// enqueue to idle:
//   1. every owner due (the first pass after an upgrade: the migration makes
//      every owner due; compaction may still find clusters),
//   2. every owner due again with nothing new: what every hourly tick cost
//      before the passes were incremental (each owner reflected and
//      compacted whether or not it had been written),
//   3. nobody written since,
//   4. `--changed` owners written since, through engine.remember.
//   pnpm -s tsx bench/scheduled-pass.ts [--owners 10000] [--per-owner 10] [--changed 100]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Caller } from '@keepgraph/core';
import { passesDue, startInProcessBackground } from '@keepgraph/core/jobs';
import { type MemoryWrite } from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { benchEngine, benchMemory, jitter } from './bench-memory.ts';
import { parseFlags } from './lib/flags.ts';
import { machineInfo } from './machine.ts';
import { rng, syntheticTexts } from './synthetic.ts';

const flags = parseFlags({ owners: 10_000, 'per-owner': 10, changed: 100, pool: 1000 });
const perOwner = flags['per-owner'];

const dir = mkdtempSync(join(tmpdir(), 'kg-bench-pass-'));
const embedder = await createTransformersEmbedder();
const store = createSqliteStore({ path: join(dir, 'bench.db') });
await store.init({ dimensions: embedder.dimensions });
const engine = benchEngine(store, embedder);
const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };

const pool = syntheticTexts(flags.pool);
const poolVectors = await embedder.embed(pool, 'document');
const r = rng(11);
const owners = Array.from(
  { length: flags.owners },
  (_, i) => `owner-${String(i).padStart(6, '0')}`,
);
const t0 = performance.now();
const at = new Date(Date.now() - 2 * 3600_000).toISOString();
const expires = new Date(Date.now() + 365 * 86400_000).toISOString();
for (let i = 0; i < owners.length; i += 100) {
  const writes: MemoryWrite[] = [];
  const due = [];
  const reflected = [];
  for (const ownerId of owners.slice(i, i + 100)) {
    const mine: MemoryWrite[] = [];
    for (let j = 0; j < perOwner; j++) {
      const k = Math.floor(r() * pool.length);
      mine.push({
        // Stored by the model in use, as the engine stores them (another model's
        // vectors would be embedded again by compaction on every pass).
        memory: {
          ...benchMemory(ownerId, `${ownerId}-m${j}`, pool[k]!, at, expires),
          embeddingModel: embedder.modelId,
        },
        embedding: jitter(poolVectors[k]!, r),
      });
    }
    writes.push(...mine);
    due.push(...passesDue(ownerId, mine));
    reflected.push({ ownerId, ids: mine.map((w) => w.memory.id), at });
  }
  await store.write({
    memories: writes,
    supersede: [],
    sessionMessages: [],
    audit: [],
    due,
    reflected,
  });
  if ((i / 100) % 10 === 0) process.stderr.write(`\rloaded ${i + 100}/${owners.length} owners`);
}
console.error(
  `\nloaded ${owners.length} owners x ${perOwner} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

const jobs = new Map<string, number>();
const bg = startInProcessBackground(engine, {
  schedules: false,
  onFinished: (job) => jobs.set(job.name, (jobs.get(job.name) ?? 0) + 1),
});

/** One tick of both schedules, from enqueue until the outbox is empty and nothing runs. */
async function tick(label: string) {
  jobs.clear();
  const start = performance.now();
  await bg.tickConsolidation();
  await bg.settle();
  const ms = Math.round(performance.now() - start);
  const row = { label, ms, jobs: Object.fromEntries(jobs) };
  console.error(`${label}: ${ms} ms, jobs ${JSON.stringify(row.jobs)}`);
  return row;
}

const everyOwner = await tick('every owner due (first pass)');
await store.write({
  memories: [],
  supersede: [],
  sessionMessages: [],
  audit: [],
  due: owners.flatMap((ownerId) => passesDue(ownerId, [{ memory: { kind: 'episode' } }])),
});
const before = await tick('every owner again, nothing new (each tick before this change)');
const nobody = await tick('no owner written since');

const changed = owners
  .filter((_, i) => i % Math.max(1, Math.floor(owners.length / flags.changed)) === 0)
  .slice(0, flags.changed);
for (const [i, ownerId] of changed.entries())
  await engine.remember(caller, ownerId, {
    kind: 'episode',
    text: pool[(i * 7) % pool.length]!,
    origin: { sessionId: 'bench-new', turn: String(i) },
  });
await bg.settle(); // what the writes themselves triggered, outside the tick
const some = await tick(`${changed.length} owners written since`);

const result = {
  machine: machineInfo(),
  owners: owners.length,
  memoriesPerOwner: perOwner,
  ticks: [everyOwner, before, nobody, some],
  /** The old tick's cost per owner, and the incremental tick's per owner written. */
  beforePerOwnerMs: +(before.ms / owners.length).toFixed(2),
  changedPerOwnerMs: +(some.ms / Math.max(1, changed.length)).toFixed(2),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/scheduled-pass-${owners.length}.json`,
  JSON.stringify(result, null, 2),
);
await bg.stop();
await store.close();
rmSync(dir, { recursive: true, force: true });
