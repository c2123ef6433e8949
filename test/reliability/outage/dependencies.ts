// The dependencies the outage test takes away and gives back, each a real
// one: another process holding SQLite's write lock, a small tmpfs filled to
// the last byte under the data directory, a Neo4j of the test's own
// (scripts/neo4j-test-server.sh) stopped and started again over the same
// data, and `keepgraph worker` beside the server for the server mode.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { keepgraphEnv } from '../../keepgraph-cli.ts';
import { spawnWorker, type WorkerProcess } from '../../e2e/keepgraph-process.ts';

const root = resolve(import.meta.dirname, '../../..');

/**
 * Another process (node with better-sqlite3, as a backup tool or a second
 * writer would be) holding the write lock of `dbPath` in BEGIN EXCLUSIVE
 * until `release`. In WAL mode readers go on; every writer waits.
 */
export async function holdWriteLock(dbPath: string): Promise<{ release(): Promise<void> }> {
  const program = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
  `;
  // Its own package's better-sqlite3, resolved from the store's folder.
  const child = spawn(process.execPath, ['-e', program, dbPath], {
    cwd: join(root, 'packages/store-sqlite'),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no lock after 30 s:\n${out}`)), 30_000);
    child.stdout.on('data', () => {
      if (out.includes('locked')) {
        clearTimeout(timer);
        ok();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the lock holder exited (${code}):\n${out}`));
    });
  });
  return {
    async release() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.write('release\n');
      await exited;
    },
  };
}

/**
 * A tmpfs of `sizeMb` mounted at `dir` (root only): a small disk of its own
 * to fill, so that SQLite meets a real ENOSPC (SQLITE_FULL), which no pragma
 * set from outside the server's connection could simulate. Null when this
 * machine does not let the test mount one.
 */
export function mountTmpfs(dir: string, sizeMb: number): { unmount(): void } | null {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch {
    return null;
  }
  return {
    unmount() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
    },
  };
}

/** Fill the filesystem of `dir` to the last byte with `dir/filler`; `free()` takes the file away. */
export function fillDisk(dir: string): { free(): void; bytesLeft(): number } {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
      }
    }
  } finally {
    closeSync(fd);
  }
  return {
    free: () => rmSync(path),
    bytesLeft: () => {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    },
  };
}

const run = promisify(execFile);

/** A Neo4j of the test's own on `port`, its data in `data`, stopped and started by scripts/neo4j-test-server.sh. */
export function ownNeo4j(port: number, data: string) {
  const script = (...args: string[]) =>
    run('bash', [join(root, 'scripts/neo4j-test-server.sh'), ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  return {
    uri: `bolt://127.0.0.1:${port}`,
    /** Start it; `keep`: over the data it had (the same database, as a restart after an outage). */
    async start(opts: { keep: boolean }): Promise<void> {
      const { stdout } = await script(
        'start',
        '--port',
        String(port),
        '--data',
        data,
        ...(opts.keep ? ['--keep'] : []),
      );
      if (!stdout.includes(`NEO4J_URI=bolt://127.0.0.1:${port}`))
        throw new Error(`neo4j-test-server did not start:\n${stdout}`);
    },
    /** SIGTERM and wait for the exit (the script's stop). */
    async stop(): Promise<void> {
      await script('stop', '--port', String(port));
    },
  };
}

/** `keepgraph worker` over `dataDir` and the `env` of the server (the same store, Redis and prefix), once it runs. */
export async function startWorker(
  dataDir: string,
  env: Record<string, string>,
): Promise<WorkerProcess> {
  const worker = spawnWorker(['--data', dataDir], keepgraphEnv(env));
  await worker.ready;
  return worker;
}
