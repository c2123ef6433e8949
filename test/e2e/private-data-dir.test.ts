// DESIGN invariant 14 as a user meets it: `keepgraph start`, `export` and
// `backup` run under umask 000 (the widest: every file the process makes
// without a mode of its own is world-writable) over a data directory a
// careless operator made 0777 with a stray 0666 file in it. The start makes
// it private and logs that it did; the directory is 0700 and every file in
// it 0600 (database, -wal, -shm, audit secret, operator key, the stray
// file), and so are the export and the backup the CLI writes.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';
import { operatorCall, startKeepGraph } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';

const root = resolve(import.meta.dirname, '../..');
const umaskBefore = process.umask();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-private-e2e-'));
  // Every process spawned below inherits it.
  process.umask(0o000);
});

afterAll(async () => {
  process.umask(umaskBefore);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

function keepgraph(dataDir: string, ...args: string[]): string {
  return execFileSync(process.execPath, keepgraphArgv('--data', dataDir, ...args), {
    cwd: root,
    env: keepgraphEnv(storeEnv('sqlite')),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

it('under umask 000, start tightens a wide data dir and logs it; every file it, export and backup write is 0600', async () => {
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { mode: 0o777 });
  await writeFile(join(dataDir, 'stray.txt'), 'left here\n');
  // The umask is really 000 here: a file made without a mode is world-writable.
  expect(await modeOf(dataDir)).toBe('777');
  expect(await modeOf(join(dataDir, 'stray.txt'))).toBe('666');

  const kg = await startKeepGraph(dataDir, storeEnv('sqlite'));
  const owner = `owner-${randomUUID()}`;
  try {
    expect(kg.log()).toMatch(/readable by other users: made it private/);
    await operatorCall(kg, 'POST', `/owners/${owner}/memories`, {
      kind: 'fact',
      text: 'The user rides a red bicycle to work',
      origin: { sessionId: 's-private' },
    });
    const names = (await readdir(dataDir)).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'audit.secret',
        'keepgraph.db',
        'keepgraph.db-shm',
        'keepgraph.db-wal',
        'operator.key',
        'stray.txt',
      ]),
    );
    const modes: Record<string, string> = { '.': await modeOf(dataDir) };
    for (const n of names) modes[n] = await modeOf(join(dataDir, n));
    expect(modes).toEqual(Object.fromEntries([['.', '700'], ...names.map((n) => [n, '600'])]));

    // An export over an existing world-readable file, and a backup, while the server serves.
    const exported = join(dir, 'export.jsonl');
    await writeFile(exported, '');
    await chmod(exported, 0o666);
    keepgraph(dataDir, 'export', '--owner', owner, '--out', exported);
    expect(await modeOf(exported)).toBe('600');
    for (const format of ['sqlite', 'jsonl']) {
      const backup = join(dir, `backup.${format}`);
      keepgraph(dataDir, 'backup', '--format', format, '--out', backup);
      expect(await modeOf(backup), format).toBe('600');
    }
    // The CLI's runtimes left the data dir as private as they found it.
    for (const n of await readdir(dataDir)) expect(await modeOf(join(dataDir, n)), n).toBe('600');
  } finally {
    await kg.stop();
  }
});
