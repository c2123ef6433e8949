// Builds stored Memory records directly (no policy gate, no per-item
// embedding) so store benchmarks can load 100k+ memories in minutes. The
// recall under test still goes through the engine with the real model
// (benchEngine).
import {
  MemoryInputSchema,
  createEngine,
  type Engine,
  type Memory,
  type MemoryInput,
} from '@keepgraph/core';
import { defaultPolicy } from '@keepgraph/core/policy';
import {
  systemClock,
  type Clock,
  type Embedder,
  type MemoryStore,
  type MemoryWrite,
} from '@keepgraph/core/ports';
import { memoryFixture } from '@keepgraph/core/testing';

export function benchMemory(
  ownerId: string,
  id: string,
  text: string,
  at: string,
  expiresAt: string,
): Memory {
  return memoryFixture(ownerId, {
    id,
    kind: 'episode',
    text,
    origin: { sessionId: `s-${id.slice(-3)}`, turn: id, observedAt: at, writtenBy: 'bench' },
    createdAt: at,
    expiresAt,
    embeddingModel: 'bench',
  });
}

/** A unit vector near `base`: distinct memories that keep the pool's semantic layout. */
export function jitter(base: Float32Array, r: () => number, amount = 0.08): Float32Array {
  const v = new Float32Array(base.length);
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = base[i]! + (r() - 0.5) * amount;
    n += v[i]! * v[i]!;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/**
 * A workload record (bench/workload) as a stored Memory, for loading straight
 * into a store: ids and derivedFrom kept as the workload names them, the
 * input validated (defaults filled) but the policy gate skipped (load only
 * records labelled stored).
 */
export function workloadMemory(
  rec: { id: string; ownerId: string; input: MemoryInput },
  at: string,
  expiresAt: string,
): Memory {
  const input = MemoryInputSchema.parse(rec.input);
  return memoryFixture(rec.ownerId, {
    id: rec.id,
    kind: input.kind,
    text: input.text,
    key: input.key ?? null,
    origin: { ...input.origin, observedAt: input.origin.observedAt ?? at, writtenBy: 'bench' },
    authority: input.authority ?? 'user',
    createdAt: at,
    validFrom: at,
    expiresAt,
    tags: input.tags,
    derivedFrom: input.derivedFrom,
    about: input.about,
    relations: input.relations,
    embeddingModel: 'bench',
  });
}

/**
 * Loads ready-made memories straight into the store, `batch` to a write:
 * nothing superseded, no session messages, no audit events.
 */
export async function writeInBatches(
  store: MemoryStore,
  writes: readonly MemoryWrite[],
  batch = 500,
): Promise<void> {
  for (let i = 0; i < writes.length; i += batch)
    await store.write({
      memories: writes.slice(i, i + batch),
      supersede: [],
      sessionMessages: [],
      audit: [],
    });
}

/** The engine every benchmark measures: default policy, in-memory job queue, system clock unless given. */
export function benchEngine(
  store: MemoryStore,
  embedder: Embedder,
  clock: Clock = systemClock,
): Engine {
  return createEngine({
    store,
    embedder,
    policy: defaultPolicy(),
    clock,
  });
}
