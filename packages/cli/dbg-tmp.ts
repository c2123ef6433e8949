import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedRuntime } from '@keepgraph/server';
import { loadDataset } from './src/retrieval-eval/dataset.ts';
import { ingestConversation } from './src/retrieval-eval/run-eval.ts';
const ds = await loadDataset('../shared/datasets/locomo-dev.json');
const conv = ds.conversations[0]!;
const rt = await openEmbeddedRuntime({ dataDir: mkdtempSync(join(tmpdir(), 'dbg-')), sweepIntervalMs: null });
const caller = { role: 'user' as const, principal: 'x' };
const ing = await ingestConversation(rt.engine, caller, conv);
for (const qi of [3, 4]) {
  const q = conv.questions[qi]!;
  const r = await rt.engine.recall(caller, ing.ownerId, q.question, { topK: 12 });
  console.log(q.question);
  for (const h of r.results) console.log(ing.turnOf.get(h.memory.id), h.score.toFixed(9), JSON.stringify(h.breakdown.ranks), h.breakdown.fused.toFixed(9), h.breakdown.recency.toFixed(9));
}
await rt.close();
