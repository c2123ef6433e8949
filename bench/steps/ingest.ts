// Step a: ingest throughput with embeddings next to the raw embedder's own
// throughput on the same texts. M workload records (bench/workload, with
// secrets and personal data at known rates) are embedded by the model alone,
// then written through engine.rememberMany (validation, policy gate, the
// same embeddings, one store transaction per batch). Refusals are compared
// with the generator's labels. To show where ingest time goes, the gate
// alone and the store write alone are timed on the same records too.
import { MemoryInputSchema, type Caller, type Memory } from '@keepgraph/core';
import { defaultPolicy, evaluateWrite } from '@keepgraph/core/policy';
import {
  generateWorkload,
  recordEmbeddingText,
  type WorkloadRecord,
} from '../workload/generator.ts';
import type { BenchContext } from './context.ts';
import { embedAll } from './context.ts';

export interface IngestOptions {
  memories: number;
  owners: number;
  seed: number;
  batch: number;
  secretRate: number;
  personalRate: number;
}

export interface IngestResult {
  memories: number;
  owners: number;
  batch: number;
  model: string;
  rawEmbedderPerSec: number;
  ingestPerSec: number;
  ingestShareOfRaw: number;
  stored: number;
  refusedByCode: Record<string, number>;
  /** Label (what the generator says the policy must do) -> outcome -> count. */
  labelsVsOutcome: Record<string, Record<string, number>>;
  labelMismatches: number;
  /** Where the time goes, per record, on the same records. */
  breakdownMsPerRecord: { embed: number; gate: number; storeWrite: number; ingest: number };
  /** Vectors of the raw pass: the pool later steps jitter. */
  pool: Float32Array[];
}

const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };

/** Batches of one owner that rememberMany can take: no key twice, no derivedFrom into the batch itself. */
function* batches(records: WorkloadRecord[], size: number): Generator<WorkloadRecord[]> {
  let cur: WorkloadRecord[] = [];
  let ids = new Set<string>();
  let keys = new Set<string>();
  for (const rec of records) {
    const clash =
      cur.length >= size ||
      (cur.length > 0 && cur[0]!.ownerId !== rec.ownerId) ||
      (rec.input.key !== undefined && keys.has(rec.input.key)) ||
      rec.input.derivedFrom.some((d) => ids.has(d));
    if (clash && cur.length > 0) {
      yield cur;
      cur = [];
      ids = new Set();
      keys = new Set();
    }
    cur.push(rec);
    ids.add(rec.id);
    if (rec.input.key) keys.add(rec.input.key);
  }
  if (cur.length > 0) yield cur;
}

export async function ingestStep(ctx: BenchContext, o: IngestOptions): Promise<IngestResult> {
  const records = [
    ...generateWorkload({
      owners: o.owners,
      memories: o.memories,
      seed: o.seed,
      secretRate: o.secretRate,
      personalRate: o.personalRate,
    }),
  ];
  const texts = records.map(recordEmbeddingText);
  const { embedder } = ctx;
  await embedder.embed(texts.slice(0, 16), 'document'); // load and warm the model

  ctx.log(`ingest: raw embedder on ${texts.length} texts (batches of ${o.batch})`);
  let t0 = performance.now();
  const pool = await embedAll(embedder, texts, 'document', o.batch);
  const rawSec = (performance.now() - t0) / 1000;
  const rawRate = texts.length / rawSec;
  ctx.log(`ingest: raw embedder ${rawRate.toFixed(0)} texts/s`);

  const db = await ctx.freshStore('ingest');
  const engine = ctx.engine(db.store);
  const idMap = new Map<string, string>();
  const outcome = new Map<string, string>();
  const stored: { memory: Memory; vector: Float32Array }[] = [];
  ctx.log(`ingest: ${records.length} records through engine.rememberMany`);
  t0 = performance.now();
  let done = 0;
  for (const batch of batches(records, o.batch)) {
    const owner = db.ownerPrefix + batch[0]!.ownerId;
    const inputs = batch.map((rec) => ({
      ...rec.input,
      derivedFrom: rec.input.derivedFrom.map((d) => idMap.get(d) ?? d),
    }));
    const res = await engine.rememberMany(caller, owner, inputs);
    const failed = new Map(res.failed.map((f) => [f.index, f.code]));
    let k = 0;
    for (const [i, rec] of batch.entries()) {
      const code = failed.get(i);
      if (code) {
        outcome.set(rec.id, code);
        continue;
      }
      const m = res.stored[k++]!;
      idMap.set(rec.id, m.id);
      outcome.set(rec.id, m.redactions.length > 0 ? 'redacted' : 'stored');
    }
    done += batch.length;
    ctx.progress(`ingest ${done}/${records.length}`);
  }
  const ingestSec = (performance.now() - t0) / 1000;
  const ingestRate = records.length / ingestSec;
  ctx.log(
    `ingest: ${ingestRate.toFixed(0)} memories/s (${(ingestRate / rawRate).toFixed(2)} of raw)`,
  );

  const labelsVsOutcome: Record<string, Record<string, number>> = {};
  const refusedByCode: Record<string, number> = {};
  let mismatches = 0;
  let storedCount = 0;
  for (const rec of records) {
    const got = outcome.get(rec.id) ?? 'missing';
    const row = (labelsVsOutcome[rec.expect] ??= {});
    row[got] = (row[got] ?? 0) + 1;
    if (got !== rec.expect) mismatches++;
    if (got.startsWith('refused_') || !['stored', 'redacted'].includes(got))
      refusedByCode[got] = (refusedByCode[got] ?? 0) + 1;
    else storedCount++;
  }

  // Breakdown: the gate alone, then the store write alone (a second, empty
  // database; the stored memories re-keyed to fresh ids and owners).
  const policy = defaultPolicy();
  t0 = performance.now();
  for (const rec of records) {
    const input = MemoryInputSchema.parse(rec.input);
    await evaluateWrite(policy, {
      kind: input.kind,
      text: input.text,
      authority: input.authority ?? 'user',
      sensitivity: input.sensitivity,
      origin: input.origin,
      ttlSeconds: input.ttlSeconds,
      derived: input.derivedFrom.length > 0,
    });
  }
  const gateMs = (performance.now() - t0) / records.length;
  const byOwner = new Map<string, string[]>();
  const order = new Map<string, number>();
  const vectorOf = new Map<string, Float32Array>();
  for (const [i, rec] of records.entries()) {
    const sid = idMap.get(rec.id);
    if (!sid) continue;
    byOwner.set(rec.ownerId, [...(byOwner.get(rec.ownerId) ?? []), sid]);
    order.set(sid, i);
    vectorOf.set(sid, pool[i]!);
  }
  for (const [owner, ids] of byOwner) {
    for (const m of await db.store.getByIds(db.ownerPrefix + owner, ids))
      stored.push({ memory: m, vector: vectorOf.get(m.id)! });
  }
  // Sources before what derives from them: the workload's order.
  stored.sort((a, b) => order.get(a.memory.id)! - order.get(b.memory.id)!);
  await db.close();
  const db2 = await ctx.freshStore('ingest-store-only');
  t0 = performance.now();
  for (let i = 0; i < stored.length; i += o.batch) {
    const chunk = stored.slice(i, i + o.batch);
    await db2.store.write({
      memories: chunk.map((s) => ({
        memory: {
          ...s.memory,
          ownerId: db2.ownerPrefix + s.memory.ownerId.slice(db.ownerPrefix.length),
        },
        embedding: s.vector,
      })),
      supersede: [],
      sessionMessages: [],
      audit: [],
    });
  }
  const storeMs = (performance.now() - t0) / Math.max(1, stored.length);
  await db2.close();

  return {
    memories: records.length,
    owners: o.owners,
    batch: o.batch,
    model: embedder.modelId,
    rawEmbedderPerSec: Math.round(rawRate),
    ingestPerSec: Math.round(ingestRate),
    ingestShareOfRaw: +(ingestRate / rawRate).toFixed(2),
    stored: storedCount,
    refusedByCode,
    labelsVsOutcome,
    labelMismatches: mismatches,
    breakdownMsPerRecord: {
      embed: +((rawSec * 1000) / texts.length).toFixed(2),
      gate: +gateMs.toFixed(2),
      storeWrite: +storeMs.toFixed(2),
      ingest: +((ingestSec * 1000) / records.length).toFixed(2),
    },
    pool,
  };
}
