// Step d: expiry sweep throughput. K memories that expired an hour ago
// (workload records over several owners, derived ones included, which expire
// with their sources) are loaded next to live ones; an engine whose clock
// stands two hours after the load runs one expire job (its processor, as
// the in-process runner or a BullMQ worker calls it: engine.expireDue in
// rounds of 1,000 until nothing is due). Afterwards nothing may be due and every live memory must
// still be there.
import { createProcessors, createStatementExtractor, expireJob } from '@keepgraph/core/jobs';
import { ManualClock, type MemoryWrite } from '@keepgraph/core/ports';
import { jitter, workloadMemory, writeInBatches } from '../bench-memory.ts';
import { rng } from '../synthetic.ts';
import { generateWorkload } from '../workload/generator.ts';
import type { BenchContext } from './context.ts';
import { type OpenStore } from './context.ts';

export interface ExpiryResult {
  expired: number;
  live: number;
  owners: number;
  loadSeconds: number;
  sweepSeconds: number;
  /** Memories deleted (roots and what derived from them) per second. */
  purgedPerSec: number;
  purged: number;
  rounds: number;
  verified: boolean;
}

export async function expiryStep(
  ctx: BenchContext,
  db: OpenStore,
  o: { expired: number; owners: number; pool: Float32Array[]; seed: number },
): Promise<ExpiryResult> {
  const T0 = Date.parse('2026-01-01T00:00:00.000Z');
  const clock = new ManualClock(new Date(T0));
  const r = rng(o.seed);
  const perOwner = Math.ceil(o.expired / o.owners);
  const liveEach = Math.max(1, Math.round(perOwner / 10));
  let expired = 0;
  let live = 0;
  let t0 = performance.now();
  for (let i = 0; i < o.owners; i++) {
    const owner = `${db.ownerPrefix}expiry-${i}`;
    const n = Math.min(perOwner, o.expired - expired);
    const recs = [
      ...generateWorkload({
        owners: 1,
        memories: n + liveEach,
        seed: o.seed + i,
        ownerName: () => owner,
        secretRate: 0,
        personalRate: 0,
        chainRate: 0.01,
      }),
    ];
    // The first n expire an hour after T0 (a derived one with its source, as
    // the engine would set it); the rest live on. Live records never derive
    // from expired ones (a derived memory never outlives its source).
    const expiresOf = new Map<string, number>();
    const writes: MemoryWrite[] = recs.map((rec, k) => {
      const own = k < n ? T0 + 3_600_000 + k : T0 + 365 * 86_400_000;
      const exp = Math.min(own, ...rec.input.derivedFrom.map((d) => expiresOf.get(d)!));
      expiresOf.set(rec.id, exp);
      if (exp < T0 + 86_400_000) expired++;
      else live++;
      return {
        memory: workloadMemory(rec, new Date(T0).toISOString(), new Date(exp).toISOString()),
        embedding: jitter(o.pool[Math.floor(r() * o.pool.length)]!, r),
      };
    });
    await writeInBatches(db.store, writes);
    ctx.progress(`expiry: loaded ${i + 1}/${o.owners} owners`);
  }
  const loadSeconds = (performance.now() - t0) / 1000;
  ctx.log(`expiry: ${expired} expired + ${live} live memories in ${o.owners} owners loaded`);

  clock.set(new Date(T0 + 2 * 3_600_000));
  const engine = ctx.engine(db.store, { clock });
  // The expire job's processor, as the in-process runner or a BullMQ worker runs it.
  const processors = createProcessors(engine, { extractor: createStatementExtractor() });
  const countAll = async () => {
    let n = 0;
    for (let i = 0; i < o.owners; i++)
      n += await db.store.countMemories(`${db.ownerPrefix}expiry-${i}`);
    return n;
  };
  const before = await countAll();
  t0 = performance.now();
  const run = await processors.expire(expireJob(clock.now().toISOString()));
  const sweepSeconds = (performance.now() - t0) / 1000;
  const purged = before - (await countAll());

  const due = await db.store.dueForExpiry(clock.now().toISOString(), 10);
  let left = 0;
  for (let i = 0; i < o.owners; i++)
    left += await db.store.countMemories(`${db.ownerPrefix}expiry-${i}`);
  const verified = due.length === 0 && purged === expired && left === live;
  if (!verified)
    ctx.log(
      `expiry: ${due.length} still due, purged ${purged} of ${expired}, ${left} of ${live} live left`,
    );
  const result: ExpiryResult = {
    expired,
    live,
    owners: o.owners,
    loadSeconds: +loadSeconds.toFixed(1),
    sweepSeconds: +sweepSeconds.toFixed(2),
    purgedPerSec: Math.round(purged / sweepSeconds),
    purged,
    rounds: Math.ceil(Number(run.purged) / 1000),
    verified,
  };
  ctx.log(
    `expiry: ${purged} purged in ${sweepSeconds.toFixed(1)} s (${result.purgedPerSec}/s), verified ${verified}`,
  );
  return result;
}
