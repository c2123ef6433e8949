// How long the web UI takes to draw a large lineage: a rule derived from 10
// summaries, each derived from about 99 episodes (1,000 memories, plus the
// sessions they were observed in), in one owner of a `keepgraph start`
// server as shipped (SQLite, real model, background jobs on). Headless
// Chromium (software WebGL, no GPU) opens the provenance view of the rule
// `--runs` times; each run reports the ms from navigation and from the
// view's start (lineage request included) to sigma's first drawn frame.
//   pnpm -s tsx bench/ui-graph-draw.ts [--runs 7] [--out bench/results/ui-graph-draw.json]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseFlags } from './lib/flags.ts';
import { machineInfo } from './machine.ts';
import { launchChromium } from '../test/e2e/chromium.ts';
import { startKeepGraph } from '../test/e2e/keepgraph-process.ts';

const flags = parseFlags({ runs: 7 }, ['out']);
const SUMMARIES = 10;
const EPISODES = 1000 - 1 - SUMMARIES;
const owner = 'bench-graph';
const dataDir = mkdtempSync(join(tmpdir(), 'kg-ui-graph-'));
const kg = await startKeepGraph(join(dataDir, 'data'), {
  KEEPGRAPH_STORE: 'sqlite',
  KEEPGRAPH_RATE_LIMIT: '0',
});

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${kg.base}/v1/owners/${owner}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${kg.operatorKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.floor(s.length / 2)]!.toFixed(1);
};

try {
  console.log(`seeding ${EPISODES} episodes, ${SUMMARIES} summaries and a rule…`);
  const batch = await post('/memories:batch', {
    memories: Array.from({ length: EPISODES }, (_, i) => ({
      kind: 'episode',
      text: `Episode ${i}: the user mentioned item ${i * 7919} of their project notes.`,
      origin: { sessionId: `s-${i % 20}`, turn: String(i) },
    })),
  });
  const episodeIds = (batch.stored as { id: string }[]).map((m) => m.id);
  if (episodeIds.length !== EPISODES)
    throw new Error(`stored ${episodeIds.length} of ${EPISODES}: ${JSON.stringify(batch.failed)}`);
  const summaryIds: string[] = [];
  for (let k = 0; k < SUMMARIES; k++) {
    const from = episodeIds.filter((_, i) => i % SUMMARIES === k);
    const r = await post('/memories', {
      kind: 'summary',
      text: `Summary ${k} of the project notes.`,
      authority: 'agent_inferred',
      origin: { sessionId: 'summaries' },
      derivedFrom: from,
    });
    summaryIds.push((r.memory as { id: string }).id);
  }
  const rule = (
    await post('/memories', {
      kind: 'rule',
      text: 'Keep the project notes in one place.',
      authority: 'agent_inferred',
      origin: { sessionId: 'summaries' },
      derivedFrom: summaryIds,
    })
  ).memory as { id: string };

  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${kg.base}/ui/`);
  await page.fill('#api-key', kg.operatorKey);
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-testid=identity]');
  const runs: { fromNavigationMs: number; fromViewMs: number; nodes: string }[] = [];
  for (let i = 0; i < flags.runs + 1; i++) {
    await page.goto('about:blank');
    await page.goto(`${kg.base}/ui/#/graph?owner=${owner}&id=${rule.id}`);
    await page.waitForSelector('.graph-canvas[data-drawn=true]', { timeout: 60_000 });
    const r = await page.evaluate(() => ({
      fromNavigationMs: window.__kgGraphDrawnAt!,
      fromViewMs: window.__kgGraphDrawnMs!,
      nodes: document.querySelector('[data-testid=graph-size]')!.textContent!,
    }));
    if (i === 0) continue; // the first run warms the server's caches and the browser's
    runs.push(r);
    console.log(
      `run ${i}: ${r.fromNavigationMs.toFixed(0)} ms from navigation, ${r.fromViewMs.toFixed(0)} ms from the view (${r.nodes})`,
    );
  }
  await browser.close();
  const result = {
    machine: machineInfo(),
    memories: 1 + SUMMARIES + EPISODES,
    graph: runs[0]?.nodes,
    runs: runs.length,
    medianFromNavigationMs: median(runs.map((r) => r.fromNavigationMs)),
    medianFromViewMs: median(runs.map((r) => r.fromViewMs)),
    maxFromNavigationMs: +Math.max(...runs.map((r) => r.fromNavigationMs)).toFixed(1),
    runsMs: runs,
  };
  console.log(JSON.stringify(result, null, 2));
  if (flags.out) {
    mkdirSync(dirname(flags.out), { recursive: true });
    writeFileSync(flags.out, JSON.stringify(result, null, 2));
  }
} finally {
  await kg.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
