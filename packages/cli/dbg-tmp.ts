import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedRuntime } from '@keepgraph/server';
import { loadDataset } from './src/retrieval-eval/dataset.ts';
import { ingestConversation } from './src/retrieval-eval/run-eval.ts';
const ds = await loadDataset('../shared/datasets/locomo-dev.json');
const rt = await openEmbeddedRuntime({ dataDir: mkdtempSync(join(tmpdir(), 'dbg-')), sweepIntervalMs: null });
const caller = { role: 'user' as const, principal: 'x' };
const hist: Record<string, number> = {};
const found: Record<string, number> = {};
let miss = 0;
for (const conv of ds.conversations) {
  const ing = await ingestConversation(rt.engine, caller, conv);
  const epOf = new Map([...ing.turnOf].map(([m, t]) => [t, m]));
  const { store, embedder, clock } = rt.engine.deps;
  for (const q of conv.questions) {
    const r = await rt.engine.recall(caller, ing.ownerId, q.question, { topK: 100 });
    const turns = r.results.map((h) => ing.turnOf.get(h.memory.id));
    const [v] = await embedder.embed([q.question], 'query');
    const now = clock.now().toISOString();
    const vec = (await store.searchVector(ing.ownerId, v!, { limit: 200, now })).map((x) => x.id);
    const txt = (await store.searchText(ing.ownerId, q.question, { limit: 200, now })).map((x) => x.id);
    for (const ev of q.evidence) {
      const rank = turns.indexOf(ev);
      if (rank >= 0 && rank < 5) continue;
      miss++;
      const b = rank < 0 ? '100+' : rank < 10 ? '5-9' : rank < 25 ? '10-24' : '25-99';
      hist[b] = (hist[b] ?? 0) + 1;
      const id = epOf.get(ev)!;
      const vr = vec.indexOf(id), tr = txt.indexOf(id);
      const k = `${q.category}: vec ${vr < 0 ? '>200' : vr < 50 ? '<50' : '<200'} / txt ${tr < 0 ? 'none' : tr < 50 ? '<50' : '<200'}`;
      found[k] = (found[k] ?? 0) + 1;
    }
  }
}
console.log({ miss, hist });
console.log(Object.entries(found).sort());
await rt.close();
