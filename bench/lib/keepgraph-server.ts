// `keepgraph start` in a child process for the benchmarks that measure a
// server as users run it (healthz-during-batch, abuse): the URL it listens
// on once it says so, and a stop that waits for the exit. Also the latency
// summary both report, and how they report it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface BenchServer {
  base: string;
  process: ChildProcess;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

/** Start the server from the checkout at `root` over `dataDir`; `env` adds to this process's. */
export async function startKeepGraphServer(
  root: string,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<BenchServer> {
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', 'packages/cli/src/main.ts', 'start', '--port', '0', '--data', dataDir],
    { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  server.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const base = await new Promise<string>((ok, fail) => {
    const t = setInterval(() => {
      const m = log.match(/listening on (http:\/\/[\d.:]+)/);
      if (m) {
        clearInterval(t);
        ok(m[1]!);
      }
    }, 50);
    server.on('exit', (c) => fail(new Error(`server exited ${c}\n${log}`)));
  });
  return {
    base,
    process: server,
    async stop() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    },
  };
}

/** The p-th percentile of `xs` (nearest rank), to 0.1; null when empty. */
export function percentile(xs: readonly number[], p: number): number | null {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? +s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(1) : null;
}

/** Count, p50, p95 and max of latencies in ms. */
export function latencyStats(xs: readonly number[]) {
  return {
    n: xs.length,
    p50: percentile(xs, 50),
    p95: percentile(xs, 95),
    max: percentile(xs, 100),
  };
}

/** Print `result` as JSON and, when `out` is given, write it there too (its folder made if missing). */
export function reportResult(result: unknown, out: string | undefined): void {
  const json = JSON.stringify(result, null, 2);
  console.log(json);
  if (!out) return;
  mkdirSync(dirname(resolve(out)), { recursive: true });
  writeFileSync(resolve(out), json + '\n');
}
