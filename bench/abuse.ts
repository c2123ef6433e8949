// Can one authenticated caller stall every tenant? A `keepgraph start`
// server (SQLite by default, default policy, background jobs on, as
// shipped) is attacked by a user key of one owner, the way issue 38's
// report did it, while a second client probes /healthz every 20 ms (open loop):
//   lineage-batch  one MCP JSON-RPC batch of 100 `lineage` calls on a memory
//                  whose derivation reaches every source (--sources);
//   lineage-batch-max  the same at the largest batch the server takes;
//   lineage-8      8 parallel GET …/lineage of that memory for --seconds;
//   forget-wide    --summaries summaries each derived from as many sources
//                  as the policy lets one memory name, then one forget of a
//                  source they all share, and the re-derivation it queues;
//   forget-fan-in  --fan-in memories each derived from one source (fan-in
//                  has no limit), then one forget of that source.
// Each attack reports /healthz p50/p95/max while it ran, and the server's
// own event-loop delay max (the Prometheus gauge of `monitorEventLoopDelay`,
// reset at each scrape, read before and after). The attacker first tries
// the report's literal writes (one memory naming every source); what the
// server answered is printed too.
//   pnpm -s tsx bench/abuse.ts [--store sqlite|neo4j] [--model hashing-384]
//     [--sources 5000] [--summaries 57] [--fan-in 5000] [--seconds 20] [--out FILE]
//     [--attacks lineage-batch,lineage-batch-max,lineage-8,forget-wide,forget-fan-in]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  latencyStats,
  percentile,
  reportResult,
  startKeepGraphServer,
} from './lib/keepgraph-server.ts';
import { machineInfo } from './machine.ts';
import { syntheticTexts } from './synthetic.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    model: { type: 'string' },
    sources: { type: 'string', default: '5000' },
    summaries: { type: 'string', default: '57' },
    seconds: { type: 'string', default: '20' },
    'fan-in': { type: 'string', default: '5000' },
    attacks: {
      type: 'string',
      default: 'lineage-batch,lineage-batch-max,lineage-8,forget-wide,forget-fan-in',
    },
    out: { type: 'string' },
  },
});
const SOURCES = Number(values.sources);
const SUMMARIES = Number(values.summaries);
const SECONDS = Number(values.seconds);
const FAN_IN = Number(values['fan-in']);
const ATTACKS = new Set(values.attacks!.split(','));
/** Run `attack` if asked for (--attacks), else null. */
const maybe = <T>(name: string, attack: () => Promise<T>) =>
  ATTACKS.has(name) ? during(name, attack) : Promise.resolve(null);
const OWNER = 'mallory';
const CALL_TIMEOUT_MS = 120_000;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(join(tmpdir(), 'kg-abuse-'));

const server = await startKeepGraphServer(root, dataDir, {
  KEEPGRAPH_STORE: values.store!,
  ...(values.model !== undefined && { KEEPGRAPH_MODEL: values.model }),
});
const { base } = server;
const operatorKey = readFileSync(join(dataDir, 'operator.key'), 'utf8').trim();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are JSON read by shape
type Json = any;

const progress = (s: string) => process.stderr.write(`[abuse] ${s}\n`);

async function call(
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: Json; bytes: number }> {
  // A call not answered in CALL_TIMEOUT_MS is reported as status 0: the
  // report's batch of lineages never answered at all.
  let r: Response;
  try {
    r = await fetch(`${base}${path}`, {
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(path === '/mcp' && { accept: 'application/json, text/event-stream' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch (e) {
    if ((e as Error).name === 'TimeoutError') return { status: 0, body: null, bytes: 0 };
    throw e;
  }
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: r.status, body: parsed, bytes: Buffer.byteLength(text) };
}

/** The server's event-loop delay max since the last scrape, in ms (the gauge resets when read). */
async function eventLoopMaxMs(): Promise<number | null> {
  await metrics();
  return loopMaxMs;
}

/**
 * The largest event-loop delay any scrape saw since `during` began: each
 * scrape resets the server's gauge, so an attack that reads /metrics
 * itself (forget-wide waits on the queues) must not lose what came before.
 */
let loopMaxMs: number | null = null;

/** The Prometheus exposition, read again while a stalled server does not accept the connection. */
async function metrics(): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const r = await fetch(`${base}/metrics`, {
        headers: { authorization: `Bearer ${operatorKey}` },
      });
      const text = await r.text();
      const m = /^keepgraph_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
      if (m) loopMaxMs = Math.max(loopMaxMs ?? 0, +(Number(m[1]) * 1000).toFixed(1));
      return text;
    } catch (e) {
      if (attempt >= 30) throw e;
    }
  }
}

/**
 * Run `attack` while a probe of /healthz starts every 20 ms, whether or not
 * the previous one has answered (open loop): a stall of 2 s shows as the
 * ~100 probes it delayed, not as one slow sample. Health and event-loop
 * figures.
 */
async function during<T>(name: string, attack: () => Promise<T>) {
  progress(`${name}: running`);
  await metrics();
  loopMaxMs = null;
  let done = false;
  const t0 = performance.now();
  const work = attack().finally(() => (done = true));
  const health: number[] = [];
  const probes: Promise<void>[] = [];
  let failed = 0;
  while (!done) {
    const s = performance.now();
    // A probe the server did not even accept (the client's 10 s connect
    // timeout) counts with the time it waited, and as failed.
    probes.push(
      fetch(`${base}/healthz`)
        .then((r) => r.arrayBuffer())
        .catch(() => void (failed += 1))
        .then(() => void health.push(performance.now() - s)),
    );
    await new Promise((r) => setTimeout(r, 20));
  }
  const result = await work;
  await Promise.all(probes);
  const ms = Math.round(performance.now() - t0);
  const loop = await eventLoopMaxMs();
  progress(
    `${name}: ${ms} ms, /healthz p95 ${percentile(health, 95)} ms, max ${percentile(health, 100)} ms, event-loop max ${loop} ms`,
  );
  return {
    ms,
    healthzMs: { ...latencyStats(health), failed },
    eventLoopDelayMaxMs: loop,
    result,
  };
}

/** Write memories in batches of 1,000; their ids in order. */
async function writeAll(key: string, items: unknown[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < items.length; i += 1000) {
    const r = await call('POST', `/v1/owners/${OWNER}/memories:batch`, key, {
      memories: items.slice(i, i + 1000),
    });
    if (r.status !== 200) throw new Error(`batch: ${r.status} ${JSON.stringify(r.body)}`);
    const stored = r.body.stored as { id: string }[];
    if (r.body.failed?.length)
      throw new Error(`batch refused: ${JSON.stringify(r.body.failed[0])}`);
    ids.push(...stored.map((s) => s.id));
    progress(`wrote ${ids.length} of ${items.length}`);
  }
  return ids;
}

const summary = (i: number, derivedFrom: string[]) => ({
  kind: 'summary',
  text: `Summary number ${i} of what the notes say about the garden and the trips`,
  derivedFrom,
  origin: { sessionId: 'abuse', turn: `s${i}` },
});

try {
  const created = await call('POST', '/v1/keys', operatorKey, {
    name: 'abuse bench',
    role: 'user',
    owners: [OWNER],
  });
  if (created.status !== 201)
    throw new Error(`key: ${created.status} ${JSON.stringify(created.body)}`);
  const key = created.body.key as string;

  const texts = syntheticTexts(SOURCES, 11);
  const sources = await writeAll(
    key,
    texts.map((text, i) => ({
      kind: 'fact',
      text,
      origin: { sessionId: 'abuse', turn: String(i) },
    })),
  );

  // The report's write: one memory naming every source.
  const literal = await call('POST', `/v1/owners/${OWNER}/memories`, key, summary(0, sources));
  const maxSources: number =
    literal.status === 201 ? sources.length : (literal.body?.error?.details?.max ?? 0);
  progress(
    `one memory naming ${sources.length} sources: ${literal.status}; the most allowed: ${maxSources}`,
  );
  if (maxSources < 2) throw new Error(`no fan-out allowed? ${JSON.stringify(literal.body)}`);

  // The deepest lineage the policy lets a caller build: layers of summaries
  // of at most maxSources sources each, up to one top memory over all.
  let layer = sources;
  let top = literal.status === 201 ? (literal.body.memory?.id ?? literal.body.id) : null;
  let n = 1;
  while (top === null) {
    const next: string[] = [];
    const items = [];
    for (let i = 0; i < layer.length; i += maxSources)
      items.push(summary(n++, layer.slice(i, i + maxSources)));
    next.push(...(await writeAll(key, items)));
    if (next.length === 1) top = next[0]!;
    layer = next;
  }
  const lineageOnce = await call('GET', `/v1/owners/${OWNER}/memories/${top}/lineage`, key);
  progress(
    `lineage of the top memory: ${lineageOnce.status}, ${lineageOnce.body?.nodes?.length} nodes, ${lineageOnce.bytes} bytes`,
  );

  const batch = Array.from({ length: 100 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i + 1,
    method: 'tools/call',
    params: { name: 'lineage', arguments: { id: top } },
  }));
  const lineageBatch = await maybe('lineage-batch', async () => {
    const r = await call('POST', '/mcp', key, batch);
    return {
      status: r.status,
      bytes: r.bytes,
      code: r.body?.error?.code ?? null,
      max: (r.body?.error?.details?.max as number | undefined) ?? null,
    };
  });
  // The largest batch the server takes, when it refused the 100.
  const allowed = lineageBatch?.result.max ?? null;
  const lineageBatchMax = await maybe('lineage-batch-max', async () => {
    if (allowed === null) return null;
    const r = await call('POST', '/mcp', key, batch.slice(0, allowed));
    return { calls: allowed, status: r.status, bytes: r.bytes };
  });

  const lineage8 = await maybe('lineage-8', async () => {
    const until = Date.now() + SECONDS * 1000;
    const statuses: Record<string, number> = {};
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < until) {
          const r = await call('GET', `/v1/owners/${OWNER}/memories/${top}/lineage`, key);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        }
      }),
    );
    return { statuses };
  });

  // Attack 2: many summaries over one shared source, then forget it.
  const shared = sources[0]!;
  const wide = Array.from({ length: SUMMARIES }, (_, i) => {
    const others = sources.slice(1);
    const start = (i * 97) % others.length;
    const picked = [...others.slice(start), ...others.slice(0, start)].slice(0, maxSources - 1);
    return summary(10_000 + i, [shared, ...picked]);
  });
  // One at a time: a summary naming thousands of ids is a body of its own.
  if (ATTACKS.has('forget-wide'))
    for (const item of wide) {
      const r = await call('POST', `/v1/owners/${OWNER}/memories`, key, item);
      if (r.status !== 201) throw new Error(`summary: ${r.status} ${JSON.stringify(r.body)}`);
    }
  const forget = await maybe('forget-wide', async () => {
    const r = await call('POST', `/v1/owners/${OWNER}/forget`, key, { ids: [shared] });
    const receiptBytes = r.bytes;
    // The re-derivation jobs it queued run in this process (embedded mode):
    // the attack lasts until the queues are idle again.
    for (;;) {
      const m = await metrics();
      const busy = [
        ...m.matchAll(
          /^keepgraph_queue_jobs\{[^}]*state="(waiting|active|delayed)"[^}]*\} (\S+)$/gm,
        ),
      ]
        .map((x) => Number(x[2]))
        .reduce((a, b) => a + b, 0);
      if (busy === 0) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    return {
      status: r.status,
      receiptBytes,
      deleted: r.body?.deletedMemoryIds?.length ?? null,
      rederive: r.body?.rederive?.length ?? null,
    };
  });

  // Attack 2b: a wide closure. Fan-in has no limit (any number of memories
  // may grow out of one), so a forget of that one deletes them all.
  const root2 = sources[1]!;
  if (ATTACKS.has('forget-fan-in'))
    await writeAll(
      key,
      Array.from({ length: FAN_IN }, (_, i) => summary(20_000 + i, [root2])),
    );
  const forgetFanIn = await maybe('forget-fan-in', async () => {
    const r = await call('POST', `/v1/owners/${OWNER}/forget`, key, { ids: [root2] });
    return {
      status: r.status,
      receiptBytes: r.bytes,
      deleted: r.body?.deletedMemoryIds?.length ?? null,
    };
  });

  const result = {
    store: values.store,
    model: values.model ?? 'default',
    sources: SOURCES,
    literalWrite: { status: literal.status, code: literal.body?.error?.code ?? null },
    maxSourcesPerMemory: maxSources,
    lineage: {
      status: lineageOnce.status,
      nodes: lineageOnce.body?.nodes?.length,
      bytes: lineageOnce.bytes,
    },
    attacks: { lineageBatch, lineageBatchMax, lineage8, forget, forgetFanIn },
    machine: machineInfo(),
  };
  reportResult(result, values.out);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
