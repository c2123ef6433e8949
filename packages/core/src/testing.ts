// Fixtures for store tests and benchmarks (`@keepgraph/core/testing`):
// complete Memory records built by hand, random unit vectors, and audit
// events. Not used by production code paths.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { contentHash, type AuditEventInput, type AuditType } from './domain/audit.ts';
import type { Memory } from './domain/record.ts';
import type { KpiDay, Kpis } from './use-cases/operate.ts';
import type { MemoryWrite, WriteBatch } from './ports/memory-store.ts';
import { EVERYONE, OWNER_ID, arg, defineUseCase, optionalArg } from './use-cases/define.ts';
import { exposed } from './use-cases/exposure.ts';

export const FIXTURE_T0 = '2026-01-01T00:00:00.000Z';
export const FIXTURE_FAR = '2030-01-01T00:00:00.000Z';

/** A complete, valid Memory with sensible defaults; `over` wins. */
export function memoryFixture(ownerId: string, over: Partial<Memory> = {}): Memory {
  const text = over.text ?? `memory text ${randomUUID()}`;
  const at = over.createdAt ?? FIXTURE_T0;
  return {
    id: `mem-${randomUUID()}`,
    ownerId,
    kind: 'fact',
    text,
    key: null,
    origin: { sessionId: 's1', turn: '1', observedAt: at, writtenBy: 'tester' },
    sourceOrigins: [],
    authority: 'user',
    createdAt: at,
    validFrom: at,
    validTo: null,
    expiresAt: FIXTURE_FAR,
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

/** A random vector of unit length (`random` defaults to Math.random). */
export function randomUnitVector(dim: number, random: () => number = Math.random): Float32Array {
  const v = new Float32Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    const x = random() * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dim; i++) v[i] = v[i]! / norm;
  return v;
}

/** An audit event input with test defaults. */
export function auditEventFixture(
  type: AuditType,
  ownerId: string | null,
  memoryIds: string[] = [],
): AuditEventInput {
  return {
    type,
    at: FIXTURE_T0,
    ownerId,
    actor: 'tester',
    role: 'operator',
    memoryIds,
    contentHashes: [],
    reason: null,
    details: {},
  };
}

/** The audit event store tests write: the fixture, noted as a test's. */
export function storeTestAuditEvent(
  type: AuditType,
  ownerId: string | null,
  memoryIds: string[] = [],
): AuditEventInput {
  return { ...auditEventFixture(type, ownerId, memoryIds), details: { note: 'test' } };
}

/**
 * A batch writing these memories (each with a random unit vector of `dim`
 * unless given as a MemoryWrite) and one `write` audit event; `extra` wins.
 */
export function storeTestBatch(
  writes: (Memory | MemoryWrite)[],
  dim: number,
  extra: Partial<WriteBatch> = {},
): WriteBatch {
  const memories = writes.map((w) =>
    'memory' in w ? w : { memory: w, embedding: randomUnitVector(dim) },
  );
  const ownerId = memories[0]?.memory.ownerId ?? null;
  const ids = memories.map((w) => w.memory.id);
  return {
    memories,
    supersede: [],
    sessionMessages: [],
    audit: [storeTestAuditEvent('write', ownerId, ids)],
    ...extra,
  };
}

/**
 * Texts of an owner whose full-text order depends on whose statistics rank
 * it: "apple" is rare in them (1 of 12), "pear" common (5 of 12). Counted
 * within the owner, the one apple row outranks "pear pear pear" for
 * "apple pear"; counted over a store where both words are rare (other
 * owners' rows), the three pears win.
 */
export const OWNER_STATISTICS_TEXTS: readonly string[] = [
  'an apple on the kitchen table',
  'pear pear pear',
  'a pear for lunch and a long walk by the river in the afternoon sun',
  'pear cake',
  'pear juice',
  'pear tree',
  ...Array.from({ length: 6 }, (_, i) => `the weather report number ${i} said rain`),
];

/** Other owners' texts for OWNER_STATISTICS_TEXTS: the same words, shorter and longer rows. */
export function otherOwnersTexts(n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? 'apple pear'
      : `pear apple orchard notes ${i} with many more words than the owner ever writes in one row`,
  );
}

/**
 * A hub entity, for each store's test that its two entity-search plans
 * (ports/entity-plan.ts) give one answer: 400 memories made by `make`, 300
 * about Casey, created out of write order (some sharing a created time,
 * ordered by write order), a few superseded, expired or not yet valid; one
 * relates Casey instead of being about her. `expected`: the ids
 * searchEntities must answer for 'casey' at `now`, newest created first,
 * then last written first.
 */
export function hubEntityFixture(
  make: (over: Partial<Memory>) => Memory,
  now: string,
): { memories: Memory[]; expected: string[] } {
  const casey = [{ name: 'Casey', type: 'person' }];
  const at = (i: number) =>
    new Date(Date.parse(FIXTURE_T0) - ((i * 7919) % 400) * 60_000).toISOString();
  const memories = Array.from({ length: 400 }, (_, i) =>
    make({
      createdAt: at(i - (i % 3 === 0 ? 1 : 0)),
      about: i % 4 === 3 ? [] : casey,
      ...(i % 50 === 1 ? { supersededBy: 'x', validTo: FIXTURE_T0 } : {}),
      ...(i % 50 === 2 ? { expiresAt: FIXTURE_T0 } : {}),
      ...(i % 50 === 5 ? { validFrom: FIXTURE_FAR } : {}),
      ...(i === 7
        ? {
            relations: [
              { subject: { name: 'user', type: 'person' }, type: 'KNOWS', object: casey[0]! },
            ],
          }
        : {}),
    }),
  );
  const expected = memories
    .map((m, rid) => ({ ...m, rid }))
    .filter((m, i) => (m.about.length > 0 || i === 7) && m.supersededBy === null)
    .filter((m) => m.expiresAt > now && m.validFrom <= now)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.rid - a.rid)
    .map((m) => m.id);
  return { memories, expected };
}

/**
 * Two made-up exposed use-cases that cover the binding rule (exposure.ts):
 * a GET whose query is one object argument, and a POST whose path holds two
 * arguments and whose body holds the others as fields, out of path order.
 * Each answers the arguments it was given.
 */
export function bindingProbes() {
  const result = z.object({ args: z.array(z.unknown()) });
  const answer = async (_deps: unknown, input: Record<string, unknown>) => ({
    args: Object.values(input),
  });
  return {
    probeList: exposed(
      defineUseCase(
        'probing a listing',
        EVERYONE,
        [
          arg('ownerId', OWNER_ID),
          optionalArg(
            'options',
            z
              .strictObject({
                limit: z.number().optional(),
                exact: z.boolean().optional(),
                tag: z.string().optional(),
              })
              .prefault({}),
          ),
        ] as const,
        answer,
      ),
      { summary: 'a listing', result, http: 'GET /owners/:ownerId/probe' },
    ),
    probeWrite: exposed(
      defineUseCase(
        'probing a write',
        EVERYONE,
        [
          arg('ownerId', OWNER_ID),
          arg('note', z.string()),
          arg('id', z.string()),
          optionalArg('weight', z.number().optional()),
        ] as const,
        answer,
      ),
      { summary: 'a write', result, http: 'POST /owners/:ownerId/things/:id', status: 201 },
    ),
  };
}
export * from './domain/seeded-random.ts';

/** The KPIs of a store that holds nothing and has audited nothing; `over` wins. */
export function kpisFixture(over: Partial<Kpis> = {}): Kpis {
  return {
    owners: 0,
    memories: 0,
    attributedShare: 1,
    medianAgeMs: null,
    byKind: {},
    byAuthority: {},
    refusals: {},
    writes: 0,
    deletions: 0,
    reads: 0,
    expiry: {
      purged: 0,
      onScheduleShare: null,
      toleranceMs: 60_000,
      lagP50Ms: null,
      lagMaxMs: null,
    },
    deletionPropagation: { count: 0, p50Ms: null, maxMs: null },
    series: [],
    auditEvents: 0,
    ...over,
  };
}

/** One day of the KPI series (`day` YYYY-MM-DD) with nothing counted but `counts`. */
export function kpiDayFixture(day: string, counts: Partial<KpiDay> = {}): KpiDay {
  return {
    day,
    writes: 0,
    refusals: 0,
    deletions: 0,
    reads: 0,
    expired: 0,
    onScheduleShare: null,
    deletionP50Ms: null,
    ...counts,
  };
}
