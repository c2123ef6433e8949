// What both stores' tests build and check the same way: fixed instants,
// random ids, hand-built Memory records, random unit vectors and write
// batches (at the store's dimension), a forget request, and the hub-entity
// check that holds both entity plans to one answer. It needs only core,
// which both store packages depend on, so the Neo4j store's tests import it
// from here by relative path; each store's helpers.ts adds its own store.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  memoryFixture,
  storeTestAuditEvent,
  storeTestBatch,
  randomUnitVector as unitVector,
} from '@keepgraph/core/testing';
import type { Memory } from '@keepgraph/core';
import type {
  CascadeRequest,
  EntityPlan,
  MemoryWrite,
  ScoredId,
  SearchOptions,
  WriteBatch,
} from '@keepgraph/core/ports';

export const T0 = '2026-01-01T00:00:00.000Z';
export const NOW = '2026-01-02T00:00:00.000Z';
export const FAR = '2030-01-01T00:00:00.000Z';

export const newOwner = (): string => `owner-${randomUUID()}`;
export const newId = (): string => `mem-${randomUUID()}`;

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

/** The fixtures that depend on the embedding dimension, bound to a store's `dim` by its helpers.ts. */
export function dimensionFixtures(dim: number) {
  return {
    /** A random vector of unit length. */
    randomUnitVector: (d = dim): Float32Array => unitVector(d),
    /** A batch writing these memories (each with an embedding unless given null) and one audit event. */
    batchOf: (writes: (Memory | MemoryWrite)[], extra: Partial<WriteBatch> = {}): WriteBatch =>
      storeTestBatch(writes, dim, extra),
  };
}

/** The audit event store tests write (core's fixture). */
export const auditEvent = storeTestAuditEvent;

/** A forget of `rootIds` and what derives from them, at NOW, with no audit events. */
export function forgetRequest(
  ownerId: string,
  rootIds: string[],
  over: Partial<CascadeRequest> = {},
): CascadeRequest {
  return { ownerId, rootIds, reason: 'forget', at: NOW, audit: [], ...over };
}

/** Both stores' test hook: searchEntities through a given plan, or the one it would choose. */
interface EntityPlanStore {
  searchEntitiesVia(
    plan: EntityPlan | undefined,
    ownerId: string,
    names: readonly string[],
    opts: SearchOptions,
  ): Promise<{ hits: ScoredId[]; chosen: EntityPlan }>;
}

/**
 * Over an owner written with core/testing's hubEntityFixture (300 of 400
 * memories about Casey, `expected` newest first): both plans answer the same
 * at every limit, and the walk is chosen only where it pays.
 */
export async function expectHubEntityPlans(
  store: EntityPlanStore,
  ownerId: string,
  expected: readonly string[],
): Promise<void> {
  for (const limit of [1, 10, 50, 400]) {
    const q = { limit, now: NOW };
    const walk = await store.searchEntitiesVia('walk', ownerId, ['casey'], q);
    const hits = await store.searchEntitiesVia('hits', ownerId, ['casey'], q);
    expect(walk.hits, `limit ${limit}`).toEqual(hits.hits);
    expect(walk.hits.length).toBe(Math.min(limit, expected.length));
    expect(walk.hits.map((h) => h.id)).toEqual(expected.slice(0, limit));
  }
  // 300 hits in an owner of 400 vectors: the walk is chosen at limit 10,
  // not at limit 400; a rare entity never walks.
  const chosen = async (names: string[], limit: number) =>
    (await store.searchEntitiesVia(undefined, ownerId, names, { limit, now: NOW })).chosen;
  expect(await chosen(['casey'], 10)).toBe('walk');
  expect(await chosen(['casey'], 400)).toBe('hits');
  expect(await chosen(['nobody'], 10)).toBe('hits');
}
