// Does a big write stall other requests? A `keepgraph start` server
// (SQLite, default policy, the real model, background jobs on as shipped)
// takes one 1,000-item `memories:batch` while a second client polls /healthz
// every 20 ms; the health latencies during the batch are reported as
// p50/p95/max beside those of an idle server, in one run.
//   pnpm -s tsx bench/healthz-during-batch.ts [--items 1000] [--out bench/results/healthz-during-batch.json]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { latencyStats, reportResult, startKeepGraphServer } from './lib/keepgraph-server.ts';
import { machineInfo } from './machine.ts';
import { syntheticTexts } from './synthetic.ts';

const { values } = parseArgs({
  options: { items: { type: 'string', default: '1000' }, out: { type: 'string' } },
});
const items = Number(values.items);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(join(tmpdir(), 'kg-healthz-'));

const server = await startKeepGraphServer(root, dataDir, { KEEPGRAPH_STORE: 'sqlite' });
const { base } = server;

/** Poll /healthz every 20 ms until `until` resolves; the latencies in ms. */
async function pollHealth(until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const out: number[] = [];
  while (!done) {
    const t0 = performance.now();
    const r = await fetch(`${base}/healthz`);
    await r.arrayBuffer();
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  return out;
}

try {
  const idle = await pollHealth(new Promise((r) => setTimeout(r, 3000)));
  const texts = syntheticTexts(items, 7);
  const memories = texts.map((text, i) => ({
    kind: 'fact',
    text,
    origin: { sessionId: 'b', turn: String(i) },
  }));
  const t0 = performance.now();
  const batch = fetch(`${base}/v1/owners/healthz-bench/memories:batch`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      // The first start over a fresh data dir writes its operator key here.
      authorization: `Bearer ${readFileSync(join(dataDir, 'operator.key'), 'utf8').trim()}`,
    },
    body: JSON.stringify({ memories }),
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { stored?: unknown[]; failed?: unknown[] },
  }));
  const during = await pollHealth(batch);
  const { status, body } = await batch;
  const batchMs = performance.now() - t0;
  const result = {
    items,
    batch: {
      status,
      stored: body.stored?.length ?? 0,
      failed: body.failed?.length ?? 0,
      ms: Math.round(batchMs),
    },
    healthzIdleMs: latencyStats(idle),
    healthzDuringBatchMs: latencyStats(during),
    machine: machineInfo(),
  };
  reportResult(result, values.out);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
