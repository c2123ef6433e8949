// DESIGN invariant 14 on the embedded store, in this process: whatever the
// umask (022, the usual one, and 000, the widest), the data directory is
// 0700 and every file in it 0600 (the database, its -wal and -shm, the
// audit secret, the operator key), and so are the backups written and a
// store restored from them; a start over a directory left wider tightens
// it and says so. (Vitest runs files in child processes, where the umask
// may be set; each test puts it back.)
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SQLITE_FILE_NAME,
  backupStore,
  ensureOperatorKey,
  restoreStore,
  type EmbeddedRuntime,
} from '@keepgraph/runtime';
import { cleanUp, embedder, openScratch, operator, scratchDir } from './scratch.ts';

const umaskBefore = process.umask();

afterEach(async () => {
  process.umask(umaskBefore);
  await cleanUp();
});

const scratch = () => scratchDir('keepgraph-private-');

const open = (dataDir: string, notices: string[] = []): Promise<EmbeddedRuntime> =>
  openScratch(dataDir, { notice: (m) => notices.push(m) });

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** The mode of the directory and of each entry in it, by name. */
async function modes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = { '.': (await modeOf(dir)).toString(8) };
  for (const name of await readdir(dir)) out[name] = (await modeOf(join(dir, name))).toString(8);
  return out;
}

/** Every mode in `dir` as it must be: 700 for the directory, 600 for each file. */
function privateModes(names: string[]): Record<string, string> {
  return Object.fromEntries([['.', '700'], ...names.map((n) => [n, '600'])]);
}

async function remember(rt: EmbeddedRuntime, text: string): Promise<void> {
  await rt.engine.remember(operator, 'owner-private', {
    kind: 'fact',
    text,
    origin: { sessionId: 's-private' },
  });
}

describe('the data directory is private whatever the umask', () => {
  for (const umask of [0o022, 0o000]) {
    it(`umask ${umask.toString(8).padStart(3, '0')}: data dir 0700, its files, backups and a restored store 0600`, async () => {
      const root = await scratch();
      process.umask(umask);
      const dataDir = join(root, 'data');
      const notices: string[] = [];
      const rt = await open(dataDir, notices);
      await remember(rt, 'The user grows tomatoes on the balcony every summer');
      expect(await ensureOperatorKey(rt.engine, dataDir)).not.toBeNull();
      // The store is open and has written: keepgraph.db, its -wal and -shm exist.
      const names = (await readdir(dataDir)).sort();
      expect(names).toEqual(
        expect.arrayContaining([
          SQLITE_FILE_NAME,
          `${SQLITE_FILE_NAME}-wal`,
          `${SQLITE_FILE_NAME}-shm`,
          'audit.secret',
          'operator.key',
        ]),
      );
      expect(await modes(dataDir)).toEqual(privateModes(names));

      const out = join(root, 'backups');
      await mkdir(out);
      for (const format of ['sqlite', 'jsonl'] as const) {
        const file = join(out, `store.${format}`);
        await backupStore(rt, operator, { out: file, format });
        expect(await modeOf(file), format).toBe(0o600);
      }
      expect(notices).toEqual([]);
      await rt.close();

      const restoredDir = join(root, 'restored');
      await restoreStore({
        from: join(out, 'store.sqlite'),
        force: false,
        dataDir: restoredDir,
        store: { kind: 'sqlite' },
        caller: operator,
        runtime: { embedder },
      });
      const reopened = await open(restoredDir, notices);
      await remember(reopened, 'The user keeps a sourdough starter in the fridge');
      expect(await modes(restoredDir)).toEqual(privateModes(await readdir(restoredDir)));
      expect(notices).toEqual([]);
    });
  }

  it('a start over a directory left open to others tightens it and its files, and says so', async () => {
    const root = await scratch();
    const dataDir = join(root, 'data');
    const first = await open(dataDir);
    await remember(first, 'The user prefers aisle seats on long flights');
    await first.close();
    // As an earlier release left it, plus a file someone else put there.
    await chmod(dataDir, 0o755);
    for (const name of await readdir(dataDir)) await chmod(join(dataDir, name), 0o644);
    await writeFile(join(dataDir, 'notes.txt'), 'left here\n', { mode: 0o666 });
    await chmod(join(dataDir, 'notes.txt'), 0o666);

    const notices: string[] = [];
    const rt = await open(dataDir, notices);
    await remember(rt, 'The user takes the early train on Mondays');
    expect(await modes(dataDir)).toEqual(privateModes(await readdir(dataDir)));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(dataDir);
    expect(notices[0]).toMatch(/\. 0755 -> 0700/);
    expect(notices[0]).toMatch(/keepgraph\.db 0644 -> 0600/);
    expect(notices[0]).toMatch(/notes\.txt 0666 -> 0600/);
    await rt.close();

    // Private now: the next start has nothing to say.
    const again: string[] = [];
    await open(dataDir, again);
    expect(again).toEqual([]);
  });
});
