// Load with leak probes and the refusal corpus under load (issue 18, items 3
// and 4). Server mode as shipped: two `keepgraph start` API processes and two
// `keepgraph worker` processes over one Neo4j and one Redis (background jobs
// on, the default policy but for a small memory cap so that eviction runs
// under the load). Eight client processes (load/load-client.ts) write,
// recall, read session context, append to sessions, forget and probe other
// owners for 200 owners, each owner through its own key; every memory an
// owner writes carries that owner's marker, and every answer is scanned for
// the markers of others. Meanwhile the clients send the credential and
// personal-data corpus through four routes, and this process sends it
// through MCP; each answer's code must be the one the same value got alone.
// Then: the queues drain, every owner is within the cap and holds only its
// own markers, the audit chain verifies, and no credential is anywhere in
// the database (a dump of every node, relationship and full-text document).
// The same, smaller, on the embedded server (SQLite, jobs in-process), whose
// raw files are read as bytes.
// 180 s and 60 s at full scale, 30 s and 15 s in the test command
// (test/scale.ts); KG_LOAD_SECONDS / KG_LOAD_EMBEDDED_SECONDS set them.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { build } from 'esbuild';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { KeepGraphClient } from '@keepgraph/client';
import { JOB_NAMES, type MemoryStore } from '@keepgraph/core/ports';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { redisConnection } from '@keepgraph/runtime';
import { credentials, personalData, type SensitiveValue } from '../corpus/sensitive-values.ts';
import { operatorCall, startKeepGraph, type KeepGraphProcess } from '../e2e/keepgraph-process.ts';
import { rawStoreBytes, storeEnv, testNeo4jStore } from '../e2e/stores.ts';
import {
  sendCorpus,
  spell,
  type CorpusRoute,
  type CorpusSend,
  type LoadClientConfig,
  type LoadClientTally,
  type LoadOwner,
} from './load/load-client.ts';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';
import { scaled } from '../scale.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

const root = resolve(import.meta.dirname, '../..');
const DEFAULT_POLICY = resolve(root, 'packages/core/policy/default.yaml');
const CAP = 40;

/**
 * The load client as one ES module, built once per file: through tsx each
 * of the twelve clients compiled the workspace's TypeScript again (0.8 s of
 * CPU a start here, against 0.2 s for the bundle).
 */
let loadClient: Promise<{ dir: string; file: string }> | null = null;
async function bundleLoadClient(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'keepgraph-load-client-'));
  const file = join(dir, 'load-client.mjs');
  await build({
    entryPoints: [resolve(root, 'test/reliability/load/load-client.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return { dir, file };
}
afterAll(async () => {
  if (loadClient) await rm((await loadClient).dir, { recursive: true, force: true });
});
const ROUTES: CorpusRoute[] = ['remember', 'batch', 'kv', 'session'];

interface Run {
  store: 'sqlite' | 'neo4j';
  apis: number;
  workers: number;
  clients: number;
  owners: number;
  seconds: number;
  /** Corpus values of each kind (credentials, personal data). */
  corpus: number;
}

const RUNS: Run[] = [
  {
    store: 'neo4j',
    apis: 2,
    workers: 2,
    clients: 8,
    owners: 200,
    seconds: scaled('KG_LOAD_SECONDS', { ci: 30, full: 180 }),
    corpus: 120,
  },
  {
    store: 'sqlite',
    apis: 1,
    workers: 0,
    clients: 4,
    owners: 50,
    seconds: scaled('KG_LOAD_EMBEDDED_SECONDS', { ci: 15, full: 60 }),
    corpus: 60,
  },
];

/** A process started here, and its output. */
interface Child {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function startChild(args: string[], env: Record<string, string>): Child {
  const proc = spawn(process.execPath, args, {
    cwd: root,
    env: keepgraphEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((ok) => proc.on('exit', (code) => ok(code)));
  return { proc, out: () => out, exited };
}

const letters = (n: number) => spell(n + 1);

for (const run of RUNS) {
  describe(`load with leak probes (${run.store}: ${run.apis} API, ${run.workers} workers, ${run.clients} clients)`, () => {
    const servers: KeepGraphProcess[] = [];
    const children: Child[] = [];
    let dir = '';

    afterAll(async () => {
      for (const c of children) c.proc.kill('SIGTERM');
      await Promise.all(children.map((c) => c.exited));
      await Promise.all(servers.map((s) => s.stop({ graceMs: 30_000 })));
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it(
      `leaks nothing across ${run.owners} owners, never answers 5xx, and refuses the corpus as it does alone`,
      async () => {
        dir = await mkdtemp(join(tmpdir(), `keepgraph-load-${run.store}-`));
        const data = join(dir, 'data');
        const policy = (await readFile(DEFAULT_POLICY, 'utf8')).replace(
          /maxMemoriesPerOwner: \d+/,
          `maxMemoriesPerOwner: ${CAP}`,
        );
        expect(policy).toContain(`maxMemoriesPerOwner: ${CAP}`);
        await writeFile(join(dir, 'policy.yaml'), policy);
        const prefix = `kgload-${randomUUID().slice(0, 8)}`;
        const env: Record<string, string> = {
          KEEPGRAPH_POLICY: join(dir, 'policy.yaml'),
          KEEPGRAPH_RATE_LIMIT: '0',
          ...storeEnv(run.store),
          ...(run.workers > 0
            ? { KEEPGRAPH_REDIS_URL: inject('redisUrl'), KEEPGRAPH_REDIS_PREFIX: prefix }
            : {}),
        };
        for (let i = 0; i < run.apis; i++) servers.push(await startKeepGraph(data, env));
        for (let i = 0; i < run.workers; i++)
          children.push(startChild(keepgraphArgv('worker', '--data', data), env));
        const kg = servers[0]!;

        // 200 owners, each with its own key and marker.
        const tag = letters(Math.floor(Math.random() * 1e6));
        const owners: LoadOwner[] = [];
        for (let i = 0; i < run.owners; i++) {
          const id = `load-${tag}-${letters(i)}`;
          const made = await operatorCall(kg, 'POST', '/keys', {
            name: `load ${id}`,
            role: 'user',
            owners: [id],
          });
          owners.push({ id, key: made.key, marker: `zq${letters(i)}x${tag}v` });
        }
        const markerPattern = `zq[a-p]+x${tag}v`;

        // The corpus, sent once alone to learn each answer's code.
        const values: SensitiveValue[] = [
          ...credentials(run.corpus, 1801),
          ...personalData(run.corpus, 1802),
        ];
        const sends: CorpusSend[] = [];
        for (const [i, v] of values.entries()) {
          const owner = i % run.owners;
          const route = ROUTES[i % ROUTES.length]!;
          const alone = new KeepGraphClient({
            baseUrl: kg.base,
            apiKey: owners[owner]!.key,
            retries: 0,
          });
          const expected = await sendCorpus(alone, owners[owner]!, { route, value: v.value }, i);
          expect(expected, `${v.kind} through ${route} alone`).not.toMatch(/^status/);
          sends.push({ owner, route, value: v.value, expected });
        }
        const refusedAlone = sends.filter((s) => s.expected !== 'ok').length;

        // The clients: each its own share of the owners and of the corpus.
        const perClient = Math.ceil(run.owners / run.clients);
        const bases = servers.map((s) => s.base);
        const clientRuns: Promise<LoadClientTally>[] = [];
        for (let c = 0; c < run.clients; c++) {
          const mine = owners.slice(c * perClient, (c + 1) * perClient);
          const first = c * perClient;
          const config: LoadClientConfig = {
            bases,
            seconds: run.seconds,
            seed: 1800 + c,
            owners: mine,
            strangers: owners.filter((o) => !mine.includes(o)).map((o) => o.id),
            markerPattern,
            corpus: sends
              .filter((s) => s.owner >= first && s.owner < first + mine.length)
              .map((s) => ({ ...s, owner: s.owner - first })),
          };
          const path = join(dir, `client-${c}.json`);
          await writeFile(path, JSON.stringify(config));
          const child = startChild([(await (loadClient ??= bundleLoadClient())).file], {
            KG_LOAD_CLIENT_CONFIG: path,
          });
          children.push(child);
          clientRuns.push(
            child.exited.then((code) => {
              const last = child.out().trim().split('\n').at(-1) ?? '';
              if (code !== 0 || !last.startsWith('{'))
                throw new Error(
                  `load client ${c} exited with ${code}:\n${child.out().slice(-3000)}`,
                );
              return JSON.parse(last) as LoadClientTally;
            }),
          );
        }

        // The corpus through MCP, beside the load, for the first owner.
        const mcpOwner = owners[0]!;
        const mcp = new Client({ name: 'keepgraph-load', version: '1' });
        await mcp.connect(
          new StreamableHTTPClientTransport(new URL(`${bases.at(-1)}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${mcpOwner.key}` } },
          }) as Transport,
        );
        const mcpFigures = { sent: 0, mismatches: [] as string[] };
        try {
          for (const [i, v] of values.entries()) {
            const alone = sends[i]!.route === 'remember' ? sends[i]!.expected : null;
            if (alone === null) continue;
            const r: any = await mcp.callTool({
              name: 'remember',
              arguments: {
                kind: 'fact',
                text: `Note ${mcpOwner.marker} with ${v.value} in it`,
                origin: { sessionId: 'corpus' },
              },
            });
            mcpFigures.sent++;
            const got = r.isError ? (r.structuredContent?.error?.code ?? 'error') : 'ok';
            if (got !== alone)
              mcpFigures.mismatches.push(`${v.kind}: ${alone} alone, ${got} by MCP`);
          }
        } finally {
          await mcp.close();
        }

        const tallies = await Promise.all(clientRuns);
        const sum = (f: (t: LoadClientTally) => number) => tallies.reduce((a, t) => a + f(t), 0);
        const statuses: Record<string, number> = {};
        const ops: Record<string, number> = {};
        for (const t of tallies) {
          for (const [k, v] of Object.entries(t.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
          for (const [k, v] of Object.entries(t.ops)) ops[k] = (ops[k] ?? 0) + v;
        }
        const fiveXX = Object.entries(statuses)
          .filter(([s]) => Number(s) >= 500 || Number(s) === 0)
          .reduce((a, [, n]) => a + n, 0);

        // The queues drain (server mode) and the outbox empties.
        const port: MemoryStore =
          run.store === 'sqlite'
            ? createSqliteStore({ path: join(data, 'keepgraph.db') })
            : testNeo4jStore();
        await port.init({ dimensions: 384 });
        const drainStart = Date.now();
        let waiting = Infinity;
        try {
          const queues =
            run.workers > 0
              ? JOB_NAMES.map(
                  (name) =>
                    new Queue(name, { connection: redisConnection(inject('redisUrl')), prefix }),
                )
              : [];
          try {
            for (let waited = 0; waited < 300_000; waited += 500) {
              const counts = await Promise.all(
                queues.map((q) => q.getJobCounts('waiting', 'active', 'prioritized')),
              );
              const outbox = (await port.outboxPending(100)).length;
              waiting =
                outbox + counts.reduce((a, c) => a + c.waiting! + c.active! + c.prioritized!, 0);
              if (waiting === 0) break;
              await sleep(500);
            }
          } finally {
            await Promise.all(queues.map((q) => q.close()));
          }

          // Every owner within the cap, holding only its own markers.
          const markers = new RegExp(markerPattern, 'g');
          let overCap = 0;
          let finalLeaks = 0;
          let held = 0;
          for (const o of owners) {
            const page: any = await operatorCall(
              kg,
              'GET',
              `/owners/${o.id}/memories?limit=${CAP + 50}`,
            );
            held += page.memories.length;
            if (page.memories.length > CAP) overCap++;
            for (const m of page.memories)
              for (const found of JSON.stringify(m).match(markers) ?? [])
                if (found !== o.marker) finalLeaks++;
          }

          // No credential stored anywhere; personal data as the gate leaves it.
          const raw = await rawStoreBytes(run.store, data);
          const stored = (vs: SensitiveValue[]) =>
            vs.filter((v) => raw.includes(Buffer.from(v.needle))).length;
          const credentialsStored = stored(values.slice(0, run.corpus));
          const personalStored = stored(values.slice(run.corpus));
          const audit = await operatorCall(kg, 'GET', '/audit/verify');

          const figures = {
            seconds: run.seconds,
            owners: run.owners,
            recallProbes: sum((t) => t.recallProbes),
            memoriesChecked: sum((t) => t.memoriesChecked),
            ownMarkersSeen: sum((t) => t.ownMarkersSeen),
            ops,
            statuses,
            fiveXX,
            leaks: sum((t) => t.leaks.length),
            crossOwnerRefused: sum((t) => t.crossOwnerRefused),
            crossOwnerServed: sum((t) => t.crossOwnerServed),
            corpusSentUnderLoad: sum((t) => t.corpusSent),
            corpusMismatches: sum((t) => t.corpusMismatches.length),
            refusedShareAlone: +(refusedAlone / sends.length).toFixed(3),
            mcpCorpusSent: mcpFigures.sent,
            mcpMismatches: mcpFigures.mismatches.length,
            credentialsStored,
            personalDataStored: personalStored,
            drainMs: Date.now() - drainStart,
            queuedAtEnd: waiting,
            memoriesHeld: held,
            ownersOverCap: overCap,
            finalLeaks,
            auditVerifies: audit.ok,
          };
          console.log(`load with leak probes (${run.store}): ${JSON.stringify(figures)}`);

          // The scan sees markers at all (else it could never find a leak).
          expect(figures.ownMarkersSeen).toBeGreaterThan(0);
          expect(tallies.flatMap((t) => t.leaks)).toEqual([]);
          expect(tallies.flatMap((t) => t.errors)).toEqual([]);
          expect(fiveXX).toBe(0);
          expect(figures.crossOwnerServed).toBe(0);
          expect(figures.crossOwnerRefused).toBeGreaterThan(0);
          expect(tallies.flatMap((t) => t.corpusMismatches)).toEqual([]);
          expect(mcpFigures.mismatches).toEqual([]);
          expect(figures.corpusSentUnderLoad).toBe(sends.length);
          expect(waiting).toBe(0);
          expect(overCap).toBe(0);
          expect(finalLeaks).toBe(0);
          expect(credentialsStored).toBe(0);
          // The gate's own bar (the refusal corpus test): 95% refused or redacted.
          expect(personalStored).toBeLessThanOrEqual(Math.floor(run.corpus * 0.05));
          expect(audit.ok).toBe(true);
        } finally {
          await port.close();
        }
        // The run, plus up to 15 minutes to start, drain and check: a longer
        // KG_LOAD_SECONDS gets a longer timeout.
      },
      Math.max(1_800_000, (run.seconds + 900) * 1000),
    );
  });
}
