// Test helpers for the SQLite store: temp database paths, a store opened
// around a file's tests, random owners, hand-built Memory records and random
// unit vectors. What the Neo4j store's tests build the same way is in
// store-fixtures.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createSqliteStore } from '../src/index.ts';
import type { SqliteMemoryStore } from '../src/index.ts';
import { dimensionFixtures } from './store-fixtures.ts';

export * from './store-fixtures.ts';

export const DIM = 8;

export const { randomUnitVector, batchOf } = dimensionFixtures(DIM);

/** A fresh temp directory and a cleanup for it. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'kg-sqlite-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An initialised store on a temp file; `done()` closes it and removes the file. */
export async function openStore(
  opts: { inMemory?: boolean } = {},
): Promise<{ store: SqliteMemoryStore; path: string; done: () => Promise<void> }> {
  const { dir, cleanup } = tempDir();
  const path = opts.inMemory ? ':memory:' : join(dir, 'nested', 'kg.db');
  const store = createSqliteStore({ path });
  await store.init({ dimensions: DIM });
  return {
    store,
    path,
    done: async () => {
      await store.close();
      cleanup();
    },
  };
}

/**
 * A store (openStore) for the file's tests: a fresh one before each test, or
 * one before all of them (`scope` 'all'), closed and its file removed after.
 * `use` receives each one opened, to keep in the file's own variables.
 */
export function storeAround(
  use: (opened: { store: SqliteMemoryStore; path: string }) => void,
  scope: 'each' | 'all' = 'each',
): void {
  let done = async (): Promise<void> => {};
  (scope === 'each' ? beforeEach : beforeAll)(async () => {
    const opened = await openStore();
    done = opened.done;
    use(opened);
  });
  (scope === 'each' ? afterEach : afterAll)(() => done());
}

/** The unit vector along axis `i`. */
export function axis(i: number, dim = DIM): Float32Array {
  const v = new Float32Array(dim);
  v[i] = 1;
  return v;
}
