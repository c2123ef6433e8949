// Test helpers for the SQLite store: temp database paths, random owners,
// hand-built Memory records and random unit vectors. What the Neo4j store's
// tests build the same way is in store-fixtures.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeTestBatch, randomUnitVector as unitVector } from '@keepgraph/core/testing';
import type { Memory, MemoryWrite, WriteBatch } from '@keepgraph/core';
import { createSqliteStore } from '../src/index.ts';
import type { SqliteMemoryStore } from '../src/index.ts';

export * from './store-fixtures.ts';

export const DIM = 8;

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

/** A random vector of unit length. */
export function randomUnitVector(dim = DIM): Float32Array {
  return unitVector(dim);
}

/** The unit vector along axis `i`. */
export function axis(i: number, dim = DIM): Float32Array {
  const v = new Float32Array(dim);
  v[i] = 1;
  return v;
}

/** A batch writing these memories (each with an embedding unless given null) and one audit event. */
export function batchOf(
  writes: (Memory | MemoryWrite)[],
  extra: Partial<WriteBatch> = {},
): WriteBatch {
  return storeTestBatch(writes, DIM, extra);
}
