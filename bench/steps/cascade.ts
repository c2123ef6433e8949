// Step c: deletion-cascade time against chain size. For each depth x fan-out,
// a root episode and its derived DAG (bench/workload's derivedChain: facts,
// rules, summaries, 10% of nodes at level 2+ with a second parent) are
// written through store.write with embeddings, next to unrelated memories of
// the same owner; then engine.forget(root) is timed, and afterwards
// engine.verifyForgotten must find no trace of any deleted id or content
// hash, and the unrelated memories must all still be there.
import type { Caller, MemoryWrite } from '@keepgraph/core';
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
  o: { pool: Float32Array[]; runs: number; seed: number },
): Promise<CascadeRow[]> {
  const engine = ctx.engine(db.store);
  const r = rng(o.seed);
  const at = new Date().toISOString();
  const expiresAt = new Date(Date.now() + 60 * 86_400_000).toISOString();
  const vec = () => jitter(o.pool[Math.floor(r() * o.pool.length)]!, r);
  const rows: CascadeRow[] = [];
  for (const [depth, fanout] of CASCADE_SHAPES) {
    const forget: number[] = [];
    const build: number[] = [];
    let verified = true;
    for (let run = 0; run < o.runs; run++) {
      const owner = `${db.ownerPrefix}cascade-${depth}x${fanout}-${run}`;
      // Unrelated memories of the same owner (the first one is the root).
      const base = [
        ...generateWorkload({
          owners: 1,
          memories: BYSTANDERS + 1,
          seed: o.seed + run,
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
      build.push(performance.now() - t0);

      t0 = performance.now();
      const receipt = await engine.forget(caller, owner, [root.id]);
      forget.push(performance.now() - t0);

      const expected = 1 + chainSize(depth, fanout);
      const check = await engine.verifyForgotten(caller, owner, {
        ids: receipt.deletedMemoryIds,
        contentHashes: receipt.deletedContentHashes,
      });
      const left = await db.store.countMemories(owner);
      if (receipt.deletedMemoryIds.length !== expected || !check.forgotten || left !== BYSTANDERS) {
        verified = false;
        ctx.log(
          `cascade ${depth}x${fanout}: deleted ${receipt.deletedMemoryIds.length} (expected ${expected}), traces ${check.traces.length}, ${left} of ${BYSTANDERS} bystanders left`,
        );
      }
    }
    const row: CascadeRow = {
      depth,
      fanout,
      derived: chainSize(depth, fanout),
      runs: o.runs,
      forgetMs: latencySummary(forget),
      buildMs: latencySummary(build).p50,
      verified,
    };
    ctx.log(
      `cascade ${depth}x${fanout} (${row.derived} derived): forget p50 ${row.forgetMs.p50} ms, max ${row.forgetMs.max} ms, verified ${verified}`,
    );
    rows.push(row);
  }
  return rows;
}
