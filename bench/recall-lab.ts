// Retrieval lab: ingest a dataset once, keep the stores, ask many times
// (`keepgraph bench recall` ingests anew every run: minutes on
// longmemeval-dev before the first question).
//
//   pnpm -s tsx bench/recall-lab.ts prepare DATASET DIR   ingest into DIR/raw (owners and turn
//                                                          ids in DIR/map.json), copy it to
//                                                          DIR/cons, consolidate that to idle
//   pnpm -s tsx bench/recall-lab.ts ask DATASET DIR [raw|cons|...]   answer and score with the
//                                                          code as it is now
//   pnpm -s tsx bench/recall-lab.ts addkeys DATASET DIR WHICH   write every episode's sentence
//                                                          keys into DIR/WHICH (a copy of cons)
//   pnpm -s tsx bench/recall-lab.ts turns DATASET DIR WHICH     embed every episode after the turn
//                                                          before it in DIR/WHICH (a copy of cons)
//
// Read-time changes need only an ask; write-time and consolidation changes a
// new prepare (or addkeys for sentence keys, turns for turn context);
// KEEPGRAPH_MODEL picks the embedding model as for the server. For ask: LAB_CONFIG='{...}'
// overrides fields of the default recipe, LAB_DUMP=FILE writes each
// question's evidence ranks, LAB_NO_ASKED=1 ignores the questions' askedAt.
// Report figures from `keepgraph bench recall`, the product as it ships.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Caller } from '@keepgraph/core';
import { RECALL_RECIPES } from '@keepgraph/core';
import { loadDataset } from '../packages/cli/src/retrieval-eval/dataset.ts';
import {
  answerQuestions,
  ingestConversation,
  type IngestedConversation,
} from '../packages/cli/src/retrieval-eval/run-eval.ts';
import { consolidateOwner } from '../packages/cli/src/retrieval-eval/consolidate.ts';
import { formatMetricsTable, scoreResults } from '../packages/cli/src/retrieval-eval/score.ts';
import type { ResultLine } from '../packages/cli/src/retrieval-eval/results.ts';

const [mode, datasetFile, dir, which = 'cons'] = process.argv.slice(2);
if (!mode || !datasetFile || !dir) {
  console.error('usage: recall-lab prepare|ask|addkeys|turns DATASET DIR [raw|cons|...]');
  process.exit(2);
}
const caller: Caller = { role: 'user', owners: 'all', principal: 'lab' };

async function open(dataDir: string) {
  const { loadServerConfig, openEmbeddedRuntime, storeSelection } =
    await import('../packages/runtime/src/index.ts');
  const config = loadServerConfig(process.env, { dataDir });
  return openEmbeddedRuntime({
    dataDir,
    store: storeSelection(config),
    modelId: config.modelId,
    sweepIntervalMs: null,
    lazyModel: true,
  });
}

type Saved = Record<string, { ownerId: string; turnOf: [string, string][] }>;

const dataset = await loadDataset(datasetFile);
if (process.env.LAB_NO_ASKED)
  for (const c of dataset.conversations) for (const q of c.questions) delete q.askedAt;
if (mode === 'prepare') {
  const rawDir = path.join(dir, 'raw');
  await mkdir(rawDir, { recursive: true });
  const rt = await open(rawDir);
  const saved: Saved = {};
  const t0 = Date.now();
  for (const conv of dataset.conversations) {
    const ing = await ingestConversation(rt.engine, caller, conv);
    saved[conv.id] = { ownerId: ing.ownerId, turnOf: [...ing.turnOf] };
    console.error(
      `${conv.id}: stored ${ing.summary.stored}/${ing.summary.turns} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }
  await rt.close();
  await writeFile(path.join(dir, 'map.json'), JSON.stringify(saved));
  await cp(rawDir, path.join(dir, 'cons'), { recursive: true });
  const ct = await open(path.join(dir, 'cons'));
  for (const conv of dataset.conversations) {
    const c = await consolidateOwner(ct.engine, saved[conv.id]!.ownerId);
    console.error(`${conv.id}: consolidated in ${(c.idleMs / 1000).toFixed(1)} s`, c.derivedLive);
  }
  await ct.close();
} else if (mode === 'addkeys') {
  // Write the sentence keys of every episode (as reflection now would) into DIR/<which>.
  const { sentenceKeysOf } = await import('../packages/core/src/jobs/sentence-keys.ts');
  const { writeDerived, REFLECTION_CALLER } =
    await import('../packages/core/src/jobs/derived-writes.ts');
  const saved = JSON.parse(await readFile(path.join(dir, 'map.json'), 'utf8')) as Saved;
  const rt = await open(path.join(dir, which));
  const t0 = Date.now();
  for (const conv of dataset.conversations) {
    const s = saved[conv.id]!;
    const ids = s.turnOf.map(([id]) => id);
    const eps = [];
    for (let i = 0; i < ids.length; i += 200)
      eps.push(...(await rt.engine.deps.store.getByIds(s.ownerId, ids.slice(i, i + 200))));
    const items = eps.flatMap((e) => sentenceKeysOf(s.ownerId, e));
    let refused = 0;
    for (let i = 0; i < items.length; i += 64) {
      const r = await writeDerived(
        rt.engine.deps,
        REFLECTION_CALLER,
        s.ownerId,
        items.slice(i, i + 64),
      );
      refused += r.refused.length;
    }
    console.error(
      `${conv.id}: ${items.length} sentence keys, ${refused} refused (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }
  await rt.close();
} else if (mode === 'turns') {
  // Put every episode's vector read after the turn before it in place (as
  // reflection does with the policy's turnContext) into DIR/<which>.
  const { vectorsInContext } = await import('../packages/core/src/services/turn-context.ts');
  const saved = JSON.parse(await readFile(path.join(dir, 'map.json'), 'utf8')) as Saved;
  const rt = await open(path.join(dir, which));
  const deps = rt.engine.deps;
  const t0 = Date.now();
  for (const conv of dataset.conversations) {
    const s = saved[conv.id]!;
    const ids = s.turnOf.map(([id]) => id);
    let n = 0;
    for (let i = 0; i < ids.length; i += 64) {
      const rows = await deps.store.getByIds(s.ownerId, ids.slice(i, i + 64));
      const updates = await vectorsInContext(deps, s.ownerId, rows);
      await deps.store.replaceEmbeddings(s.ownerId, updates);
      n += updates.length;
    }
    console.error(
      `${conv.id}: ${n} turns read in context (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }
  await rt.close();
} else if (mode === 'ask') {
  // Recall's options take a recipe name, not its fields: a trial setting is
  // written into this process's default recipe, which every ask then uses.
  const overrides = process.env.LAB_CONFIG ? JSON.parse(process.env.LAB_CONFIG) : {};
  Object.assign(RECALL_RECIPES.default as object, overrides);
  const saved = JSON.parse(await readFile(path.join(dir, 'map.json'), 'utf8')) as Saved;
  const rt = await open(path.join(dir, which));
  const lines: ResultLine[] = [];
  const dump: unknown[] = [];
  for (const conv of dataset.conversations) {
    const s = saved[conv.id]!;
    const ing: IngestedConversation = {
      ownerId: s.ownerId,
      turnOf: new Map(s.turnOf),
      summary: { turns: 0, stored: 0, refused: 0, refusedByCode: {} },
    };
    const r = await answerQuestions(rt.engine, caller, conv, ing, 25, 'engine');
    lines.push(...r.lines);
    for (const [i, q] of conv.questions.entries()) {
      const got = r.lines[i]!.turnIds;
      dump.push({
        id: q.id,
        cat: q.category,
        q: q.question,
        ev: q.evidence.map((e) => [e, got.indexOf(e)]),
        top: got.slice(0, 25),
      });
    }
  }
  await rt.close();
  for (const l of formatMetricsTable(scoreResults(dataset, lines))) console.log(l);
  if (process.env.LAB_DUMP)
    await writeFile(process.env.LAB_DUMP, dump.map((d) => JSON.stringify(d)).join('\n'));
} else {
  console.error(`unknown mode ${mode}: prepare, ask, addkeys or turns`);
  process.exit(2);
}
