// A data directory left open to other users that this process cannot make
// private (not its owner: chmod answers EPERM) is refused at open with a
// coded error naming the path, before the store or the model is opened.
// chmod is made to fail here, since these tests run as root, whom it never
// refuses.
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as fsPromises from 'node:fs/promises';
import { afterEach, expect, it, vi } from 'vitest';
import { isKeepGraphError } from '@keepgraph/core';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { openEmbeddedRuntime } from '@keepgraph/runtime';

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  return { ...real, chmod: vi.fn(real.chmod) };
});

const dirs: string[] = [];

afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

it('refuses a data directory it cannot make private, naming it, and opens nothing', async () => {
  const root = await mkdtemp(join(tmpdir(), 'keepgraph-not-owner-'));
  dirs.push(root);
  const dataDir = join(root, 'data');
  await mkdir(dataDir);
  await chmod(dataDir, 0o755);
  await writeFile(join(dataDir, 'audit.secret'), `${'s'.repeat(64)}\n`);
  const eperm = Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
  vi.mocked(chmod).mockRejectedValueOnce(eperm);

  const opened = openEmbeddedRuntime({
    dataDir,
    embedder: createHashingEmbedder(16),
    sweepIntervalMs: null,
    notice: () => {},
  });
  const e: unknown = await opened.then(
    async (rt) => {
      await rt.close();
      return null;
    },
    (err: unknown) => err,
  );
  expect(isKeepGraphError(e)).toBe(true);
  if (!isKeepGraphError(e)) return;
  expect(e.code).toBe('store_unavailable');
  expect(e.details).toMatchObject({ reason: 'data_dir_not_private' });
  expect(e.message).toContain(dataDir);
  expect(e.message).toMatch(/0755/);
  expect(e.message).toMatch(/EPERM/);
  // Refused before the store opened: no database was made.
  expect(await readdir(dataDir)).toEqual(['audit.secret']);
});
