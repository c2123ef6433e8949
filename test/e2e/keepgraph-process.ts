// `keepgraph start` as users start it, in a child process, for the e2e
// tests: the URL it listens on, everything it logged, and a stop that waits
// for the process to exit (SIGTERM: the server checkpoints and closes).
// `keepgraph worker` likewise, for the tests that run jobs out of process.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';

const root = resolve(import.meta.dirname, '../..');

export interface KeepGraphProcess {
  base: string;
  /** An operator key: the one this start printed, else DATA_DIR/operator.key, else one made with `keys create`. */
  operatorKey: string;
  /** stdout and stderr so far. */
  log(): string;
  /** SIGTERM and wait for the exit; with `graceMs`, SIGKILL if it has not exited by then. */
  stop(opts?: { graceMs?: number }): Promise<void>;
  /** SIGKILL (a crash: nothing runs on the way out) and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * Wait for a spawned `keepgraph start` (this checkout's, a release's or an
 * installed one) to say where it listens, collecting its output as it
 * comes. One that exits first or says nothing within 90 s fails, and is
 * killed: a server nobody will stop would go on relaying every owner's jobs.
 */
export async function listeningOn(
  server: ChildProcess,
  what = 'server',
): Promise<{ base: string; log: () => string }> {
  let out = '';
  const collect = (d: Buffer) => {
    out += d.toString();
    if (process.env.KG_E2E_DEBUG) process.stderr.write(d);
  };
  server.stdout!.on('data', collect);
  server.stderr!.on('data', collect);
  const base = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${what} did not start:\n${out}`)), 90_000);
    const poll = setInterval(() => {
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m) {
        clearInterval(poll);
        clearTimeout(timer);
        ok(m[1]!);
      }
    }, 25);
    server.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      fail(new Error(`${what} exited with ${code}:\n${out}`));
    });
  }).catch((e: unknown) => {
    server.kill('SIGKILL');
    throw e;
  });
  return { base, log: () => out };
}

/** Start the server on a free port over `dataDir`; `env` adds to this process's environment. */
export async function startKeepGraph(
  dataDir: string,
  env: Record<string, string>,
): Promise<KeepGraphProcess> {
  const server: ChildProcess = spawn(
    process.execPath,
    keepgraphArgv('start', '--port', '0', '--data', dataDir),
    { cwd: root, env: keepgraphEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { base, log } = await listeningOn(server);
  let operatorKey: string;
  try {
    operatorKey =
      /Operator key[^\n]*:\n\s+(kgk_\S+)/.exec(log())?.[1] ??
      (existsSync(join(dataDir, 'operator.key'))
        ? readFileSync(join(dataDir, 'operator.key'), 'utf8').trim()
        : createKey(dataDir, env, ['--role', 'operator', '--all-owners', '--name', 'e2e operator'])
            .key);
  } catch (e) {
    // A server nobody will stop would go on relaying every owner's jobs.
    server.kill('SIGKILL');
    throw e;
  }
  return {
    base,
    operatorKey,
    log,
    async stop(opts: { graceMs?: number } = {}) {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      // A clean shutdown waits for the job that is running; over the shared
      // Neo4j test database a scheduled pass over every owner can outlast a
      // test's hook. Where the test has checked what it needs, it may cut
      // the wait short.
      const killer =
        opts.graceMs === undefined
          ? undefined
          : setTimeout(() => server.kill('SIGKILL'), opts.graceMs);
      await exited;
      clearTimeout(killer);
    },
    async kill() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * `keepgraph start` over a data directory of its own (made on the first
 * start, in a temporary directory named from `prefix`), started as often as
 * a test likes (again after a stop or a kill). `end` stops or kills every
 * process it started and removes the directory.
 */
export function scratchKeepGraph(prefix: string, env: Record<string, string>) {
  const started: KeepGraphProcess[] = [];
  let dir = '';
  return {
    /** The data directory every start shares. */
    get dataDir(): string {
      return join(dir, 'data');
    },
    async start(): Promise<KeepGraphProcess> {
      dir ||= await mkdtemp(join(tmpdir(), prefix));
      const kg = await startKeepGraph(join(dir, 'data'), env);
      started.push(kg);
      return kg;
    },
    async end(how: 'stop' | 'kill'): Promise<void> {
      await Promise.all(started.map((p) => p[how]()));
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Settles once the worker says it is running; fails if it exits first, or after 90 s. */
  ready: Promise<void>;
  /** stdout and stderr so far. */
  log(): string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/** `keepgraph worker ARGS…` with `env` as its whole environment; await `ready` before using it. */
export function spawnWorker(args: string[], env: NodeJS.ProcessEnv): WorkerProcess {
  const child = spawn(process.execPath, keepgraphArgv('worker', ...args), {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`worker did not start:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('KeepGraph worker running')) {
        clearTimeout(timer);
        ok();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) =>
      fail(new Error(`worker exited (${code ?? signal}):\n${out}`)),
    );
  });
  // A worker that never came up is not left running (and a `ready` nobody
  // awaits any more leaves no unhandled rejection).
  ready.catch(() => child.kill('SIGKILL'));
  return {
    child,
    ready,
    log: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `keepgraph keys create … --json` over `dataDir` (and the store `env` names), as an operator would run it. */
export function createKey(
  dataDir: string,
  env: Record<string, string>,
  flags: string[],
): { id: string; key: string; role: string; owners: 'all' | string[] } {
  const out = execFileSync(
    process.execPath,
    keepgraphArgv('keys', 'create', ...flags, '--json', '--data', dataDir),
    { cwd: root, env: keepgraphEnv(env), encoding: 'utf8' },
  );
  return JSON.parse(out) as { id: string; key: string; role: string; owners: 'all' | string[] };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are JSON read by shape
type Json = any;

/** One /v1 request to the server at `base` with a bearer key, a JSON body when given. */
export function v1Fetch(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${base}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/**
 * One /v1 call with the server's operator key, a JSON body when given;
 * expects a 2xx (the failure names the call and its answer) and returns the
 * answer's JSON.
 */
export async function operatorCall(
  kg: KeepGraphProcess,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  const r = await v1Fetch(kg.base, kg.operatorKey, method, path, body);
  const json = (await r.json()) as unknown;
  expect(r.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
  return json;
}

/** A user key for `owner` alone, made with the server's operator key (POST /v1/keys). */
export async function userKeyFor(
  kg: KeepGraphProcess,
  owner: string,
  name: string,
): Promise<string> {
  return (await operatorCall(kg, 'POST', '/keys', { name, role: 'user', owners: [owner] }))
    .key as string;
}
