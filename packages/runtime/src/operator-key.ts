// Secure by default: a server refuses requests without a credential, so the
// first start over an empty store makes an operator key, writes it to
// DATA_DIR/operator.key (mode 0600) for the README's walk-through and local
// tools, and hands it back once to be printed. Only its hash is stored.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { authenticateApiKey, type Caller, type Engine } from '@keepgraph/core';

/** File of the first operator key inside the data dir. */
export const OPERATOR_KEY_FILE = 'operator.key';

const BOOTSTRAP: Caller = { role: 'operator', owners: 'all', principal: 'system:first-start' };

/**
 * The operator key made for a store that has no API key yet, or null when it
 * has some (nothing is made: keys are the operator's to manage). Two
 * processes starting together over one empty store each make one; the file
 * is written by the first (`wx`), and the other revokes its own.
 */
export async function ensureOperatorKey(
  engine: Engine,
  dataDir: string,
): Promise<{ key: string; id: string; path: string } | null> {
  if ((await engine.listKeys(BOOTSTRAP)).length > 0) return null;
  const created = await engine.createKey(BOOTSTRAP, {
    name: 'operator (made on first start)',
    role: 'operator',
    owners: 'all',
  });
  const path = join(dataDir, OPERATOR_KEY_FILE);
  try {
    await writeFile(path, `${created.key}\n`, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      await engine.revokeKey(BOOTSTRAP, created.id);
      throw e;
    }
    // Another process got there first, or the file is left from an earlier
    // store: keep the file's key if it works here, else replace it.
    const existing = await readOperatorKey(dataDir);
    const deps = engine.deps;
    if (existing && (await authenticateApiKey(deps.store, existing, deps.clock.now()))) {
      await engine.revokeKey(BOOTSTRAP, created.id);
      return null;
    }
    await writeFile(path, `${created.key}\n`, { mode: 0o600 });
    await chmod(path, 0o600);
  }
  return { key: created.key, id: created.id, path };
}

/** The key in DATA_DIR/operator.key, or null when there is none. */
export async function readOperatorKey(dataDir: string): Promise<string | null> {
  try {
    return (await readFile(join(dataDir, OPERATOR_KEY_FILE), 'utf8')).trim() || null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
