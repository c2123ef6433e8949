// Test helpers for the SQLite store: temp database paths, random owners,
// hand-built Memory records and random unit vectors.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  storeTestAuditEvent,
  storeTestBatch,
  memoryFixture,
  randomUnitVector as unitVector,
} from '@keepgraph/core/testing';
import type { Memory, MemoryWrite, WriteBatch } from '@keepgraph/core';
import { createSqliteStore } from '../src/index.ts';
import type { SqliteMemoryStore } from '../src/index.ts';

export const DIM = 8;
export const T0 = '2026-01-01T00:00:00.000Z';
export const NOW = '2026-01-02T00:00:00.000Z';
export const FAR = '2030-01-01T00:00:00.000Z';

export const newOwner = (): string => `owner-${randomUUID()}`;
export const newId = (): string => `mem-${randomUUID()}`;

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

/** A complete Memory with sensible defaults. */
export function makeMemory(ownerId: string, over: Partial<Memory> = {}): Memory {
  return memoryFixture(ownerId, {
    id: newId(),
    origin: { sessionId: 's1', turn: '1', observedAt: T0, writtenBy: 'tester' },
    createdAt: T0,
    validFrom: T0,
    expiresAt: FAR,
    ...over,
  });
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

/** The audit event store tests write (core's fixture). */
export const auditEvent = storeTestAuditEvent;

/** A batch writing these memories (each with an embedding unless given null) and one audit event. */
export function batchOf(
  writes: (Memory | MemoryWrite)[],
  extra: Partial<WriteBatch> = {},
): WriteBatch {
  return storeTestBatch(writes, DIM, extra);
}
