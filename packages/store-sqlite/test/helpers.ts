// Test helpers for the SQLite store: temp database paths, random owners,
// hand-built Memory records and random unit vectors.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentHash } from '@keepgraph/core';
import type { AuditEventInput, AuditType, Memory, MemoryWrite, WriteBatch } from '@keepgraph/core';
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
  const text = over.text ?? `memory text ${randomUUID()}`;
  return {
    id: newId(),
    ownerId,
    kind: 'fact',
    text,
    key: null,
    origin: { sessionId: 's1', turn: '1', observedAt: T0, writtenBy: 'tester' },
    sourceOrigins: [],
    authority: 'user',
    createdAt: T0,
    validFrom: T0,
    validTo: null,
    expiresAt: FAR,
    sensitivity: 'low',
    tags: [],
    confidence: 1,
    contentHash: contentHash(text),
    derivedFrom: [],
    supersedes: null,
    supersededBy: null,
    conflict: false,
    about: [],
    relations: [],
    embeddingModel: 'test-model',
    redactions: [],
    ...over,
  };
}

/** A random vector of unit length. */
export function randomUnitVector(dim = DIM): Float32Array {
  const v = new Float32Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    const x = Math.random() * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dim; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

/** The unit vector along axis `i`. */
export function axis(i: number, dim = DIM): Float32Array {
  const v = new Float32Array(dim);
  v[i] = 1;
  return v;
}

export function auditEvent(
  type: AuditType,
  ownerId: string | null,
  memoryIds: string[] = [],
): AuditEventInput {
  return {
    type,
    at: T0,
    ownerId,
    actor: 'tester',
    role: 'operator',
    memoryIds,
    contentHashes: [],
    reason: null,
    details: { note: 'test' },
  };
}

/** A batch writing these memories (each with an embedding unless given null) and one audit event. */
export function batchOf(
  writes: (Memory | MemoryWrite)[],
  extra: Partial<WriteBatch> = {},
): WriteBatch {
  const memories = writes.map((w) =>
    'memory' in w ? w : { memory: w, embedding: randomUnitVector() },
  );
  const ownerId = memories[0]?.memory.ownerId ?? null;
  return {
    memories,
    supersede: [],
    sessionMessages: [],
    audit: [
      auditEvent(
        'write',
        ownerId,
        memories.map((w) => w.memory.id),
      ),
    ],
    ...extra,
  };
}
