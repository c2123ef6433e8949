// What every benchmark step shares: the store under test (a fresh, empty
// database on request), the real embedder, an engine factory, progress on
// stderr and memory snapshots. Neo4j: with NEO4J_URI set, that server is used
// and each "fresh" database is a new owner prefix (cleaned up on close);
// without it, the bench starts its own server (the repository's embedded
// Neo4j 5.26 test server, bigger heap) and restarts it empty for each database.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Engine } from '@keepgraph/core';
import { type Clock, type Embedder, type MemoryStore } from '@keepgraph/core/ports';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { createNeo4jStore, type Neo4jMemoryStore } from '@keepgraph/store-neo4j';
import { benchEngine } from '../bench-memory.ts';

export type StoreKind = 'sqlite' | 'neo4j';

export interface MemorySnapshot {
  step: string;
  /** Peak resident set of this process so far (process.resourceUsage().maxRSS). */
  maxRssMiB: number;
  rssMiB: number;
  heapUsedMiB: number;
  /** Peak resident set of the Neo4j server the bench started (VmHWM), if any. */
  neo4jHwmMiB?: number;
}

export interface OpenStore {
  store: MemoryStore;
  /** Prefix every owner id of this database with it (non-empty only on a shared Neo4j). */
  ownerPrefix: string;
  close(): Promise<void>;
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

export class BenchContext {
  readonly memory: MemorySnapshot[] = [];
  private readonly tmp = mkdtempSync(join(tmpdir(), 'kg-bench-'));
  private neo4j: Neo4jServer | null = null;
  private dbCount = 0;
  readonly runTag = `b${Date.now().toString(36)}`;

  constructor(
    readonly storeKind: StoreKind,
    readonly embedder: Embedder,
    readonly opts: { neo4jPort: number; neo4jUri?: string },
  ) {}

  log(msg: string): void {
    process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  }

  progress(msg: string): void {
    if (process.stderr.isTTY) process.stderr.write(`\r${msg}   `);
  }

  /** An empty database of the store under test, initialised. */
  async freshStore(label: string): Promise<OpenStore> {
    const n = ++this.dbCount;
    if (this.storeKind === 'sqlite') {
      const path = join(this.tmp, `${label}-${n}.db`);
      const store = createSqliteStore({ path });
      await store.init({ dimensions: this.embedder.dimensions });
      return {
        store,
        ownerPrefix: '',
        close: async () => {
          await store.close();
          for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
        },
      };
    }
    let uri = this.opts.neo4jUri;
    let ownerPrefix = '';
    if (!uri) {
      const t0 = performance.now();
      await this.neo4j?.stop();
      this.neo4j = await Neo4jServer.start(this.opts.neo4jPort);
      uri = this.neo4j.uri;
      this.log(
        `neo4j: fresh server for ${label} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    } else ownerPrefix = `${this.runTag}-${n}-`;
    const store = createNeo4jStore({ uri });
    await store.init({ dimensions: this.embedder.dimensions });
    return {
      store,
      ownerPrefix,
      close: async () => {
        if (ownerPrefix) await deleteOwnersWithPrefix(store, ownerPrefix);
        await store.close();
      },
    };
  }

  engine(store: MemoryStore, opts: { clock?: Clock; embedder?: Embedder } = {}): Engine {
    return benchEngine(store, opts.embedder ?? this.embedder, opts.clock);
  }

  snapshot(step: string): MemorySnapshot {
    const mu = process.memoryUsage();
    const s: MemorySnapshot = {
      step,
      maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      rssMiB: mib(mu.rss),
      heapUsedMiB: mib(mu.heapUsed),
    };
    const hwm = this.neo4j?.hwmMiB();
    if (hwm !== undefined) s.neo4jHwmMiB = hwm;
    this.memory.push(s);
    return s;
  }

  async close(): Promise<void> {
    await this.neo4j?.stop();
    this.neo4j = null;
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** A shared Neo4j: remove what this run wrote, in batches (audit events stay: the log is append-only). */
async function deleteOwnersWithPrefix(store: MemoryStore, prefix: string): Promise<void> {
  const s = store as Neo4jMemoryStore;
  const session = s.driver.session({ database: s.database });
  try {
    await session.run(
      'MATCH (n) WHERE n.ownerId STARTS WITH $prefix CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS',
      { prefix },
    );
  } finally {
    await session.close();
  }
}

const ROOT = resolve(import.meta.dirname, '../..');
const JAR = join(ROOT, 'tools/neo4j-test-server/target/neo4j-test-server.jar');

/** The repository's Neo4j test server with a benchmark-sized heap, on its own empty data dir. */
export class Neo4jServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly uri: string,
  ) {}

  static async start(port: number): Promise<Neo4jServer> {
    if (!existsSync(JAR))
      throw new Error(`${JAR} not found: run bash scripts/neo4j-test-server.sh build`);
    const dir = join(ROOT, '.tmp/neo4j');
    const data = join(dir, `bench-${port}`);
    const logPath = join(dir, `bench-${port}.log`);
    mkdirSync(dir, { recursive: true });
    rmSync(data, { recursive: true, force: true });
    const fd = openSync(logPath, 'w');
    const child = spawn(
      'java',
      [
        '-Xms1g',
        '-Xmx3g',
        '-jar',
        JAR,
        '--port',
        String(port),
        '--data',
        data,
        '--page-cache-mb',
        '1536',
      ],
      { stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    // Never leave the server behind: on exit, and on Ctrl-C or kill.
    process.once('exit', () => child.kill('SIGKILL'));
    for (const sig of ['SIGINT', 'SIGTERM'] as const)
      process.once(sig, () => {
        child.kill('SIGKILL');
        process.exit(130);
      });
    const server = new Neo4jServer(child, `bolt://127.0.0.1:${port}`);
    for (let i = 0; i < 240; i++) {
      if (child.exitCode !== null)
        throw new Error(`neo4j exited (${child.exitCode}), see ${logPath}`);
      if (readFileSync(logPath, 'utf8').includes('NEO4J_READY')) return server;
      await new Promise((r) => setTimeout(r, 500));
    }
    child.kill('SIGKILL');
    throw new Error(`neo4j did not start in 120 s, see ${logPath}`);
  }

  hwmMiB(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
      return kb ? Math.round(Number(kb) / 1024) : undefined;
    } catch {
      return undefined;
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
}

/** p50/p95/p99 (and mean, max) of latencies in ms. */
export function latencySummary(ms: number[]): {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
  n: number;
} {
  const s = [...ms].sort((a, b) => a - b);
  const p = (q: number) =>
    s.length === 0
      ? NaN
      : s[Math.min(s.length - 1, Math.max(0, Math.ceil((q / 100) * s.length) - 1))]!;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    p50: r2(p(50)),
    p95: r2(p(95)),
    p99: r2(p(99)),
    mean: r2(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)),
    max: r2(s[s.length - 1] ?? NaN),
    n: s.length,
  };
}

/** Embed in fixed-size batches (the engine's rememberMany batch), in order. */
export async function embedAll(
  embedder: Embedder,
  texts: readonly string[],
  purpose: 'document' | 'query',
  batch = 64,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batch)
    out.push(...(await embedder.embed(texts.slice(i, i + batch), purpose)));
  return out;
}
