// Vitest global setup: makes sure the services the tests talk to are up,
// once per run. Neo4j: one server for each Vitest worker (test/services.ts
// says why), the embedded test server (tools/neo4j-test-server) built if
// needed and started on ports of the run's own, stopped afterwards; or the
// servers NEO4J_URI names (a comma-separated list, one per worker). Tests
// read their worker's URI with neo4jUri() from test/services.ts.
// Redis: REDIS_URL if given, otherwise a redis-server of the run's own (no
// persistence) on KEEPGRAPH_TEST_REDIS_PORT (16379); inject('redisUrl').
// The CLI: bundled once for the run's spawned processes (test/cli-bundle.ts).
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildCliBundle } from './cli-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One Bolt URI per Vitest worker, in pool order. */
    neo4jUris: string[];
    /** One port per worker for a Neo4j a test starts for itself. */
    neo4jPrivatePorts: number[];
    neo4jUser: string;
    neo4jPassword: string;
    redisUrl: string;
    /** The run's bundle of the CLI, or '' to run the sources through tsx. */
    cliBundle: string;
  }
}

const root = resolve(import.meta.dirname, '..');
/** The first worker's Neo4j port; worker i (from 0) uses this + 10 i, and + 1 for a private server. */
const TEST_PORT = Number(process.env.KEEPGRAPH_TEST_NEO4J_PORT ?? '17687');

async function script(args: string[]): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    'bash',
    [resolve(root, 'scripts/neo4j-test-server.sh'), ...args],
    { cwd: root, encoding: 'utf8' },
  );
  if (stderr) process.stderr.write(stderr);
  return stdout;
}

const REDIS_PORT = process.env.KEEPGRAPH_TEST_REDIS_PORT ?? '16379';

/** Start a throwaway redis-server; returns its URL and how to stop it. */
async function startRedis(): Promise<{ url: string; stop: () => void }> {
  const server = spawn(
    'redis-server',
    ['--port', REDIS_PORT, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  server.stdout.on('data', (b: Buffer) => (log += b.toString()));
  server.stderr.on('data', (b: Buffer) => (log += b.toString()));
  const started = await new Promise<boolean>((done) => {
    server.once('error', () => done(false));
    server.once('exit', () => done(false));
    const t0 = Date.now();
    const poll = setInterval(() => {
      if (/Ready to accept connections/.test(log)) {
        clearInterval(poll);
        done(true);
      } else if (Date.now() - t0 > 15_000) {
        clearInterval(poll);
        done(false);
      }
    }, 50);
  });
  // Never outlive the test run, whatever ends it.
  process.once('exit', () => server.kill());
  if (!started) {
    server.kill();
    throw new Error(
      `redis-server did not start on port ${REDIS_PORT} (install it: bash scripts/test.sh does, or set REDIS_URL):\n${log}`,
    );
  }
  return { url: `redis://127.0.0.1:${REDIS_PORT}`, stop: () => void server.kill() };
}

// Global setup runs once per Vitest project, each with a fresh copy of this
// module but in one process: one Redis and one set of Neo4j servers (kept on
// globalThis) serve them all and stop with the last project.
interface SharedServices {
  redis: Promise<{ url: string; stop: () => void }> | undefined;
  cliBundle: Promise<string>;
  neo4j: Promise<{ uris: string[]; stop: () => Promise<void> }>;
  users: number;
}
const shared = globalThis as { __keepgraphTestServices?: SharedServices };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const workers = project.globalConfig.maxWorkers;
  const services = (shared.__keepgraphTestServices ??= {
    redis: process.env.REDIS_URL ? undefined : startRedis(),
    neo4j: startNeo4j(workers),
    cliBundle: process.env.KEEPGRAPH_TEST_CLI === 'tsx' ? Promise.resolve('') : buildCliBundle(),
    users: 0,
  });
  services.users++;
  project.provide('redisUrl', process.env.REDIS_URL ?? (await services.redis!).url);
  project.provide('neo4jUser', process.env.NEO4J_USER ?? '');
  project.provide('neo4jPassword', process.env.NEO4J_PASSWORD ?? '');
  project.provide('neo4jUris', (await services.neo4j).uris);
  project.provide('cliBundle', await services.cliBundle);
  project.provide(
    'neo4jPrivatePorts',
    Array.from({ length: workers }, (_, i) => TEST_PORT + 10 * i + 1),
  );
  return async () => {
    if (--services.users > 0) return;
    delete shared.__keepgraphTestServices;
    await (await services.neo4j).stop();
    (await services.redis)?.stop();
  };
}

/** One Neo4j per worker: NEO4J_URI's list, or test servers started here in parallel. */
async function startNeo4j(workers: number): Promise<{ uris: string[]; stop: () => Promise<void> }> {
  const given = process.env.NEO4J_URI?.split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (given) {
    if (given.length < workers) {
      throw new Error(
        `NEO4J_URI names ${given.length} server(s) for ${workers} Vitest workers: give one per worker (comma-separated), or set KEEPGRAPH_TEST_WORKERS=${given.length}`,
      );
    }
    return { uris: given.slice(0, workers), stop: async () => {} };
  }
  // Build once before the parallel starts (each start would otherwise check the build).
  await script(['build']);
  const ports = Array.from({ length: workers }, (_, i) => String(TEST_PORT + 10 * i));
  const uris = await Promise.all(
    ports.map(async (port) => {
      // The optimising JIT: a worker's server answers queries for the whole
      // run (the servers tests start and stop keep the quicker-starting
      // default). One already running on the port (scripts/test.sh starts
      // them beside the static checks) is taken as it is.
      const out = await script(['start', '--port', port, '--long-lived']);
      const uri = /NEO4J_URI=(\S+)/.exec(out)?.[1];
      if (!uri) throw new Error(`the Neo4j test server on ${port} did not report its URI:\n${out}`);
      return uri;
    }),
  );
  return {
    uris,
    stop: async () => {
      await Promise.all(ports.map((port) => script(['stop', '--port', port])));
    },
  };
}
