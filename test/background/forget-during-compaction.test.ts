// A memory forgotten while compaction summarises it (a forget racing the
// job, as the dependencies-failing reliability test's clients did while the
// worker caught up after a Redis outage): the store refuses the summary,
// whose source the owner no longer has, and the job fails with `conflict`,
// which the job runners retry, not with `invalid_input`, which failed it for
// good (a compact job left failed in BullMQ). The retry summarises what is
// left. On both stores: the refusal comes from each store's own check.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { type Engine } from '@keepgraph/core';
import { compact, isCompactionSummary } from '@keepgraph/core/jobs';
import { systemClock, type MemoryStore, type WriteBatch } from '@keepgraph/core/ports';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { isFinalJobError } from '@keepgraph/workers';
import { engineOver, user } from './harness.ts';
import { neo4jAuth, neo4jUri } from '../services.ts';

/** The store, with `beforeDerivedWrite` run once, just before the first write of a derived memory. */
function racing(store: MemoryStore, beforeDerivedWrite: () => Promise<void>): MemoryStore {
  let raced = false;
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'write')
        return async (batch: WriteBatch) => {
          if (!raced && batch.memories.some((m) => m.memory.derivedFrom.length > 0)) {
            raced = true;
            await beforeDerivedWrite();
          }
          await target.write(batch);
        };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const dir = mkdtempSync(join(tmpdir(), 'kg-forget-compaction-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: Record<string, () => MemoryStore> = {
  sqlite: () => createSqliteStore({ path: join(dir, 'kg.db') }),
  neo4j: () => createNeo4jStore({ uri: neo4jUri(), ...neo4jAuth() }),
};

for (const [name, open] of Object.entries(stores)) {
  describe(`a forget racing compaction (${name})`, () => {
    it('fails the job with a retryable conflict, and the retry summarises the rest', async () => {
      const store = open();
      const o = `race-${randomUUID()}`;
      let engine: Engine | null = null;
      let gone = '';
      const raced = racing(store, async () => {
        await engine!.forget(user, o, [gone]);
      });
      engine = await engineOver(raced, { clock: systemClock });
      try {
        const members: string[] = [];
        for (let i = 1; i <= 6; i++) {
          const r = await engine.remember(user, o, {
            kind: 'episode',
            text: `Booked flight ${'abcdef'[i - 1]} for Alex: aisle seat, economy class, one checked bag.`,
            origin: { sessionId: `trip-${i}`, turn: '1' },
          });
          members.push(r.memory.id);
        }
        gone = members[2]!;

        const e = await compact(engine.deps, o).then(
          () => null,
          (x: unknown) => x,
        );
        expect(e).toMatchObject({ code: 'conflict', details: { reason: 'source_deleted' } });
        expect(isFinalJobError(e)).toBe(false);
        expect(await store.getById(o, gone)).toBeNull();

        // The retry, on the settled state.
        const run = await compact(engine.deps, o);
        expect(run.written).toHaveLength(1);
        const live = await store.getByIds(o, await store.listIds(o));
        const summaries = live.filter((m) => isCompactionSummary(m) && m.supersededBy === null);
        expect(summaries).toHaveLength(1);
        expect([...summaries[0]!.derivedFrom].sort()).toEqual(
          members.filter((id) => id !== gone).sort(),
        );
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}
