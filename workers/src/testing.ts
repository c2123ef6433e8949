// Test helper (`@keepgraph/workers/testing`): a redis-server of the test's
// own, to stop and start again (outages), on a port of its own. Not for
// production paths.
import { spawn, type ChildProcess } from 'node:child_process';

export interface TestRedis {
  port: number;
  url: string;
  /** Start (or start again, on the same port and directory). */
  start(): Promise<void>;
  /** SIGTERM is a clean shutdown (the append-only file is complete); SIGKILL is a crash. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export function testRedis(
  opts: { port?: number; dir?: string; appendOnly?: boolean } = {},
): TestRedis {
  // Below Linux's ephemeral range (32768 up): a port picked there can be
  // taken meanwhile by any outgoing connection (a Bolt or Redis client).
  const port = opts.port ?? 20000 + Math.floor(Math.random() * 12000);
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', ''];
  if (opts.dir) args.push('--dir', opts.dir);
  args.push(
    ...(opts.appendOnly
      ? ['--appendonly', 'yes', '--appendfsync', 'always']
      : ['--appendonly', 'no']),
  );
  let child: ChildProcess | null = null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const c = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      await new Promise<void>((ok, fail) => {
        let log = '';
        const timer = setTimeout(() => fail(new Error(`redis did not start:\n${log}`)), 20_000);
        c.stdout!.on('data', (d: Buffer) => {
          log += d.toString();
          if (/Ready to accept connections/.test(log)) {
            clearTimeout(timer);
            ok();
          }
        });
        c.once('exit', (code) => fail(new Error(`redis exited (${code}):\n${log}`)));
      });
      child = c;
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      if (!c) return;
      const exited = new Promise((ok) => c.once('exit', ok));
      c.kill(signal);
      await exited;
      child = null;
    },
  };
}
