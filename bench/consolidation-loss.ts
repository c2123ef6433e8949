// Where consolidation loses (or adds) evidence, with figures: each
// conversation of a memory-retrieval-eval/v1 dataset is ingested under a
// fresh owner, its questions are asked, the owner's background jobs are run
// to idle (as `bench recall --consolidate` does), and the questions are asked
// again. For every evidence turn that was in the raw top k and is not in the
// consolidated top k, the script says why:
//   hidden-compaction  its episode is a member of a live compaction summary
//                      and was not returned itself
//   hidden-derived     a returned derived memory names its episode as a source
//                      and the episode itself was not returned
//   crowded-out        its episode was returned, but lower: the turns derived
//                      memories expanded into took the slots above it
//   outranked          the episode fell for another reason
// and it counts the top-k turn slots that derived memories filled.
//   pnpm -s tsx bench/consolidation-loss.ts --dataset ../shared/datasets/locomo-dev.json [--k 5] [--out FILE.json]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine, isLiveAt, type Caller, type Engine } from '@keepgraph/core';
import { isCompactionSummary } from '@keepgraph/core/jobs';
import { DEFAULT_POLICY_PATH, loadPolicyFile } from '@keepgraph/core/policy';
import { systemClock } from '@keepgraph/core/ports';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import {
  consolidateOwner,
  ingestConversation,
  type IngestedConversation,
} from '@keepgraph/cli/retrieval-eval';
import { DATASET_FLAGS, flaggedDataset } from './lib/dataset-flags.ts';
import { machineInfo } from './machine.ts';

const { values } = parseArgs({
  options: { ...DATASET_FLAGS, k: { type: 'string', default: '5' }, out: { type: 'string' } },
});
const dataset = await flaggedDataset(
  values,
  'usage: pnpm -s tsx bench/consolidation-loss.ts --dataset FILE [--k 5] [--limit-conversations N] [--out FILE.json]',
);
const k = Number(values.k);

/** One returned memory and the turns it stands for in the ranked list. */
interface Slot {
  id: string;
  kind: string;
  derived: boolean;
  turns: string[];
}

async function ranked(
  engine: Engine,
  caller: Caller,
  conv: IngestedConversation,
  question: string,
): Promise<Slot[]> {
  const r = await engine.recall(caller, conv.ownerId, question, { topK: 25 });
  const seen = new Set<string>();
  const out: Slot[] = [];
  for (const hit of r.results) {
    const own = conv.turnOf.get(hit.memory.id);
    let turns: string[];
    if (own !== undefined) turns = [own];
    else {
      const g = await engine.lineage(caller, conv.ownerId, hit.memory.id);
      turns = g.nodes
        .filter((n) => n.key !== hit.memory.id && n.attributes.kind === 'episode')
        .map((n) => conv.turnOf.get(n.key))
        .filter((t): t is string => t !== undefined);
    }
    turns = turns.filter((t) => !seen.has(t));
    turns.forEach((t) => seen.add(t));
    out.push({ id: hit.memory.id, kind: hit.memory.kind, derived: own === undefined, turns });
  }
  return out;
}

const topTurns = (slots: readonly Slot[], n: number) => slots.flatMap((s) => s.turns).slice(0, n);

const dir = mkdtempSync(join(tmpdir(), 'kg-loss-'));
// The shipped configuration: the default policy file, the default model, SQLite.
const embedder = await createTransformersEmbedder();
const store = createSqliteStore({ path: join(dir, 'keepgraph.db') });
await store.init({ dimensions: embedder.dimensions });
const policy = loadPolicyFile(DEFAULT_POLICY_PATH);
const rt = { store, engine: createEngine({ store, embedder, policy, clock: systemClock }) };
const caller: Caller = { role: 'user', owners: 'all', principal: 'bench' };
const reasons: Record<string, number> = {};
const gains = { evidenceGained: 0, evidenceLost: 0 };
let derivedSlots = 0;
let slots = 0;
let derivedResults = 0;
let turnsPerDerived = 0;
const examples: unknown[] = [];
try {
  for (const c of dataset.conversations) {
    const conv = await ingestConversation(rt.engine, caller, c);
    const raw = new Map<string, Slot[]>();
    for (const q of c.questions) raw.set(q.id, await ranked(rt.engine, caller, conv, q.question));
    const done = await consolidateOwner(rt.engine, conv.ownerId);
    console.error(`${c.id}: consolidated in ${done.idleMs} ms`);
    const episodeOf = new Map([...conv.turnOf].map(([id, t]) => [t, id]));
    const now = rt.engine.deps.clock.now().toISOString();
    // Which episodes a live compaction summary covers.
    const covered = new Set<string>();
    const edges = await rt.store.derivedFrom(conv.ownerId, [...conv.turnOf.keys()]);
    const children = await rt.store.getByIds(conv.ownerId, [...new Set(edges.map((e) => e.child))]);
    const liveSummaries = new Set(
      children.filter((m) => isCompactionSummary(m) && isLiveAt(m, now)).map((m) => m.id),
    );
    for (const e of edges) if (liveSummaries.has(e.child)) covered.add(e.source);
    for (const q of c.questions) {
      const after = await ranked(rt.engine, caller, conv, q.question);
      const before = raw.get(q.id)!;
      const top = topTurns(after, k);
      // Slots of the top k filled by derived memories' expansions.
      let n = 0;
      for (const s of after) {
        for (const _ of s.turns) {
          if (n >= k) break;
          n++;
          slots++;
          if (s.derived) derivedSlots++;
        }
        if (s.derived) {
          derivedResults++;
          turnsPerDerived += s.turns.length;
        }
      }
      const beforeTop = new Set(topTurns(before, k));
      for (const ev of q.evidence) {
        const was = beforeTop.has(ev);
        const is = top.includes(ev);
        if (!was && is) gains.evidenceGained++;
        if (!was || is) continue;
        gains.evidenceLost++;
        const ep = episodeOf.get(ev);
        const returnedItself = after.some((s) => s.id === ep);
        const viaDerived = after.some((s) => s.derived && s.turns.includes(ev));
        let reason: string;
        if (!returnedItself && ep && covered.has(ep)) reason = 'hidden-compaction';
        else if (!returnedItself && viaDerived) reason = 'hidden-derived';
        else if (
          returnedItself &&
          after
            .slice(
              0,
              after.findIndex((s) => s.id === ep),
            )
            .some((s) => s.derived)
        )
          reason = 'crowded-out';
        else reason = 'outranked';
        reasons[reason] = (reasons[reason] ?? 0) + 1;
        if (examples.length < 40)
          examples.push({
            question: q.question,
            evidence: ev,
            reason,
            top: after.slice(0, 3).map((s) => ({ kind: s.kind, turns: s.turns.length })),
          });
      }
    }
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
const report = {
  dataset: dataset.name,
  k,
  machine: machineInfo(),
  evidenceLostFromRawTopK: gains.evidenceLost,
  evidenceGainedIntoTopK: gains.evidenceGained,
  lostBy: reasons,
  shareOfTopKSlotsFromDerived: slots ? Math.round((1000 * derivedSlots) / slots) / 10 : 0,
  meanTurnsPerDerivedResult: derivedResults
    ? Math.round((10 * turnsPerDerived) / derivedResults) / 10
    : 0,
  examples,
};
const text = JSON.stringify(report, null, 2);
if (values.out) writeFileSync(resolve(values.out), text + '\n');
console.log(text);
