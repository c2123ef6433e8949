// What the write path's reflection trigger costs: the countUnreflected read
// each episode write makes (capped at the policy's afterEpisodes, as the
// trigger asks it), timed on an owner with many unreflected episodes, beside
// the uncapped count and the write itself (remember with the real model).
// Usage: pnpm -s tsx bench/trigger-cost.ts [--episodes 10000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { memoryFixture, randomUnitVector } from '@keepgraph/core/testing';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { benchEngine } from './bench-memory.ts';
import { machineInfo } from './machine.ts';

const { values } = parseArgs({ options: { episodes: { type: 'string', default: '10000' } } });
const n = Number(values.episodes);
const dir = mkdtempSync(join(tmpdir(), 'kg-trigger-'));
const embedder = await createTransformersEmbedder();
const store = createSqliteStore({ path: join(dir, 'kg.db') });
await store.init({ dimensions: embedder.dimensions });
const owner = 'trigger-owner';
for (let i = 0; i < n; i += 1000) {
  await store.write({
    memories: Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
      memory: memoryFixture(owner, {
        kind: 'episode',
        text: `episode ${i + j} about the weekly plan`,
      }),
      embedding: randomUnitVector(embedder.dimensions),
    })),
    supersede: [],
    sessionMessages: [],
    audit: [],
  });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const now = new Date().toISOString();
const timeCount = async (upTo?: number) => {
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await store.countUnreflected(owner, now, upTo);
    ms.push(performance.now() - t);
  }
  return median(ms);
};
const uncapped = await timeCount();
const capped = await timeCount(10);
const engine = benchEngine(store, embedder);
const writes: number[] = [];
for (let i = 0; i < 100; i++) {
  const t = performance.now();
  await engine.remember({ role: 'user', owners: 'all', principal: 'bench' }, owner, {
    kind: 'episode',
    text: `Call ${i}: went through the invoice schedule for order ${i * 7}.`,
    origin: { sessionId: `s${i}` },
  });
  writes.push(performance.now() - t);
}
console.log(
  JSON.stringify(
    {
      machine: machineInfo(),
      unreflectedEpisodes: n,
      countUncappedMedianMs: +uncapped.toFixed(3),
      countCappedMedianMs: +capped.toFixed(3),
      rememberMedianMs: +median(writes).toFixed(2),
      cappedShareOfWrite: +(capped / median(writes)).toFixed(4),
    },
    null,
    1,
  ),
);
await store.close();
rmSync(dir, { recursive: true, force: true });
