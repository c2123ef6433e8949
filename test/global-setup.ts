// Vitest global setup: makes sure the services the tests talk to are up,
// once per run. Neo4j: NEO4J_URI if given, otherwise the embedded test
// server (tools/neo4j-test-server) is built if needed, started on a port of
// its own, and stopped afterwards. Tests read the URI with inject('neo4jUri').
// Redis: REDIS_URL if given, otherwise a redis-server of the run's own (no
// persistence) on KEEPGRAPH_TEST_REDIS_PORT (16379); inject('redisUrl').
import { execFileSync, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    neo4jUri: string;
    neo4jUser: string;
    neo4jPassword: string;
    redisUrl: string;
  }
}

const root = resolve(import.meta.dirname, '..');
const TEST_PORT = process.env.KEEPGRAPH_TEST_NEO4J_PORT ?? '17687';

function script(...args: string[]): string {
  return execFileSync('bash', [resolve(root, 'scripts/neo4j-test-server.sh'), ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
// module but in one process: one Redis (kept on globalThis) serves them all
// and stops with the last.
interface SharedRedis {
  server: Promise<{ url: string; stop: () => void }>;
  users: number;
}
const shared = globalThis as { __keepgraphTestRedis?: SharedRedis };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let url = process.env.REDIS_URL;
  let mine: SharedRedis | undefined;
  if (!url) {
    mine = shared.__keepgraphTestRedis ??= { server: startRedis(), users: 0 };
    mine.users++;
    url = (await mine.server).url;
  }
  project.provide('redisUrl', url);
  const stopNeo4j = setupNeo4j(project);
  return async () => {
    stopNeo4j?.();
    if (mine && --mine.users === 0) {
      delete shared.__keepgraphTestRedis;
      (await mine.server).stop();
    }
  };
}

function setupNeo4j(project: TestProject): (() => void) | undefined {
  const given = process.env.NEO4J_URI;
  project.provide('neo4jUser', process.env.NEO4J_USER ?? '');
  project.provide('neo4jPassword', process.env.NEO4J_PASSWORD ?? '');
  if (given) {
    project.provide('neo4jUri', given);
    return undefined;
  }
  const out = script('start', '--port', TEST_PORT);
  const uri = /NEO4J_URI=(\S+)/.exec(out)?.[1];
  if (!uri) throw new Error(`the Neo4j test server did not report its URI:\n${out}`);
  project.provide('neo4jUri', uri);
  return () => {
    script('stop', '--port', TEST_PORT);
  };
}
