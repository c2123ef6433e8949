// Step c: deletion-cascade time against chain size. For each depth x fan-out,
// a root episode and its derived DAG (bench/workload's derivedChain: facts,
// rules, summaries, 10% of nodes at level 2+ with a second parent) are
// written through store.write with embeddings, next to unrelated memories of
// the same owner; then engine.forget(root) is timed, and afterwards
// engine.verifyForgotten must find no trace of any deleted id or content
// hash, and the unrelated memories must all still be there.
import type { Caller } from '@keepgraph/core';
import type { MemoryWrite } from '@keepgraph/core/ports';
import { jitter, workloadMemory, writeInBatches } from '../bench-memory.ts';
import { rng } from '../synthetic.ts';
import { chainSize, derivedChain, generateWorkload } from '../workload/generator.ts';
import type { BenchContext } from './context.ts';
import { latencySummary, type OpenStore } from './context.ts';

export interface CascadeRow {
  depth: number;
  fanout: number;
  derived: number;
  runs: number;
  /** engine.forget of the root, ms. */
  forgetMs: ReturnType<typeof latencySummary>;
  /** Building the DAG through store.write, ms (median). */
  buildMs: number;
  verified: boolean;
  /** The warm-up round's forget of this shape (first of its shape on this server), ms; absent without warm-up. */
  firstRunMs?: number;
}

const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };
const BYSTANDERS = 200;

export const CASCADE_SHAPES: [number, number][] = [
  [1, 10],
  [2, 10],
  [1, 100],
  [2, 31],
  [3, 10],
  [1, 1000],
];

export async function cascadeStep(
  ctx: BenchContext,
  db: OpenStore,
  o: { pool: Float32Array[]; runs: number; seed: number; warmupRounds?: number },
): Promise<CascadeRow[]> {
  const engine = ctx.engine(db.store);
  const r = rng(o.seed);
  const at = new Date().toISOString();
  const expiresAt = new Date(Date.now() + 60 * 86_400_000).toISOString();
  const vec = () => jitter(o.pool[Math.floor(r() * o.pool.length)]!, r);

  /** Build one DAG of this shape for a new owner, forget its root, check; the forget's ms. */
  const runOnce = async (depth: number, fanout: number, run: string, seed: number) => {
    const owner = `${db.ownerPrefix}cascade-${depth}x${fanout}-${run}`;
    // Unrelated memories of the same owner (the first one is the root).
    const base = [
      ...generateWorkload({
        owners: 1,
        memories: BYSTANDERS + 1,
        seed,
        ownerName: () => owner,
        secretRate: 0,
        personalRate: 0,
        chainRate: 0,
        updateRate: 0,
      }),
    ];
    const root = base[0]!;
    let n = base.length;
    const chain = derivedChain({
      r,
      ownerId: owner,
      rootId: root.id,
      name: 'Alex',
      depth,
      fanout,
      crossLinkRate: 0.1,
      newId: () => `${owner}:m${n++}`,
      observedAt: at,
    });
    const writes: MemoryWrite[] = [...base, ...chain].map((rec) => ({
      memory: workloadMemory(rec, at, expiresAt),
      embedding: vec(),
    }));
    let t0 = performance.now();
    await writeInBatches(db.store, writes);
    const buildMs = performance.now() - t0;

    t0 = performance.now();
    const receipt = await engine.forget(caller, owner, [root.id]);
    const forgetMs = performance.now() - t0;

    const expected = 1 + chainSize(depth, fanout);
    const check = await engine.verifyForgotten(caller, owner, {
      ids: receipt.deletedMemoryIds,
      contentHashes: receipt.deletedContentHashes,
    });
    const left = await db.store.countMemories(owner);
    const verified =
      receipt.deletedMemoryIds.length === expected && check.forgotten && left === BYSTANDERS;
    if (!verified)
      ctx.log(
        `cascade ${depth}x${fanout}: deleted ${receipt.deletedMemoryIds.length} (expected ${expected}), traces ${check.traces.length}, ${left} of ${BYSTANDERS} bystanders left`,
      );
    return { forgetMs, buildMs, verified };
  };

  // A server that has just started runs its first cascades on a cold JIT
  // (Neo4j: a 1,000-memory cascade about twice as slow for its first dozen
  // runs, bench/README): warm-up rounds run every shape once, timed apart as
  // `firstRunMs`, before the measured runs.
  // The first warm-up round's run of each shape, by shape index.
  const first: { forgetMs: number; verified: boolean }[] = [];
  for (let w = 0; w < (o.warmupRounds ?? 0); w++) {
    for (const [i, [depth, fanout]] of CASCADE_SHAPES.entries()) {
      const x = await runOnce(depth, fanout, `warmup${w}`, o.seed + 1000 + w);
      if (w === 0) first[i] = x;
      ctx.log(
        `cascade ${depth}x${fanout} warm-up round ${w + 1}: forget ${x.forgetMs.toFixed(1)} ms`,
      );
    }
  }

  const rows: CascadeRow[] = [];
  for (const [i, [depth, fanout]] of CASCADE_SHAPES.entries()) {
    const forget: number[] = [];
    const build: number[] = [];
    const firstRun = first[i];
    let verified = firstRun?.verified ?? true;
    for (let run = 0; run < o.runs; run++) {
      const x = await runOnce(depth, fanout, String(run), o.seed + run);
      forget.push(x.forgetMs);
      build.push(x.buildMs);
      verified &&= x.verified;
    }
    const row: CascadeRow = {
      depth,
      fanout,
      derived: chainSize(depth, fanout),
      runs: o.runs,
      forgetMs: latencySummary(forget),
      buildMs: latencySummary(build).p50,
      verified,
      ...(firstRun ? { firstRunMs: +firstRun.forgetMs.toFixed(1) } : {}),
    };
    ctx.log(
      `cascade ${depth}x${fanout} (${row.derived} derived): forget p50 ${row.forgetMs.p50} ms, max ${row.forgetMs.max} ms, verified ${verified}`,
    );
    rows.push(row);
  }
  return rows;
}
