// The job outbox and the bookkeeping of background jobs (DESIGN.md, "Modes"):
// jobs a write or a cascade triggers are recorded in the same transaction
// (so a failed write leaves none and a queue outage loses none), each job
// id once while pending, read oldest first across owners and removed on
// ack; reflection marks the episodes it consumed; re-embedding finds the
// memories of another model, swaps their vectors and reads them back.
// Stores are shared between tests and the outbox is read across owners, so
// every assertion keeps to the test's own random owners.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compactJob,
  reembedJob,
  reflectJob,
  type Memory,
  type MemoryStore,
  type OutboxEntry,
} from '@keepgraph/core';
import { auditEventFixture, memoryFixture, randomUnitVector } from '@keepgraph/core/testing';
import {
  batchOf,
  derived,
  episode,
  expectCode,
  makeFixture,
  operator,
  user,
  type ConformanceOptions,
  type Fixture,
} from '../harness.ts';

const T = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
const NOW = '2026-06-01T00:00:00.000Z';

/** An episode of `ownerId` created at minute `minute`, with `over` on top. */
const episodeAt = (ownerId: string, minute: number, over: Partial<Memory> = {}): Memory =>
  memoryFixture(ownerId, { kind: 'episode', createdAt: T(minute), ...over });

export function outboxAndJobsSuite(opts: ConformanceOptions): void {
  describe('outbox and background-job bookkeeping', () => {
    let f: Fixture;
    let store: MemoryStore;
    let dims: number;
    const owners: string[] = [];

    /** A fresh owner, remembered so afterAll can acknowledge its jobs. */
    const owner = (): string => {
      const o = f.owner();
      owners.push(o);
      return o;
    };

    /** The pending entries of these owners, in the store's order. */
    const pendingOf = async (...of: string[]): Promise<OutboxEntry[]> =>
      (await store.outboxPending(100_000)).filter((e) => of.includes(e.job.ownerId));

    const batch = batchOf;

    /** Write memories (with random vectors unless told otherwise) in one batch. */
    const put = async (
      ms: Memory[],
      vectors: Map<string, Float32Array | null> = new Map(),
    ): Promise<void> => {
      await store.write(
        batch({
          memories: ms.map((memory) => ({
            memory,
            embedding: vectors.has(memory.id)
              ? (vectors.get(memory.id) ?? null)
              : randomUnitVector(dims),
          })),
        }),
      );
    };

    beforeAll(async () => {
      f = await makeFixture(opts, await opts.makeStore());
      store = f.engine.deps.store;
      dims = f.engine.deps.embedder.dimensions;
    });
    afterAll(async () => {
      // Clean up: the outbox is shared by every test on this store.
      if (owners.length) await store.outboxAck((await pendingOf(...owners)).map((e) => e.job.id));
      await f.sut.close();
    });

    describe('outbox', () => {
      it('records a write’s jobs with the batch, dated by its first audit event, oldest first', async () => {
        const o = owner();
        const m = memoryFixture(o, { createdAt: T(1) });
        const reflect = reflectJob(o, 'count', m.id);
        const compact = compactJob(o, m.id);
        await store.write(
          batch({
            memories: [{ memory: m, embedding: randomUnitVector(dims) }],
            audit: [{ ...auditEventFixture('write', o, [m.id]), at: T(5) }],
            jobs: [reflect, compact],
          }),
        );
        // No audit event: dated by the first memory's createdAt.
        const m2 = memoryFixture(o, { createdAt: T(2) });
        const reembed = reembedJob(o, 'model-x');
        await store.write(
          batch({
            memories: [{ memory: m2, embedding: null }],
            jobs: [reembed],
          }),
        );

        const mine = await pendingOf(o);
        // Write order, not recordedAt order (the second batch is dated earlier).
        expect(mine).toEqual([
          { job: reflect, recordedAt: T(5) },
          { job: compact, recordedAt: T(5) },
          { job: reembed, recordedAt: T(2) },
        ]);
        expect(await store.getById(o, m.id)).toEqual(m);
      });

      it('dates a batch with neither audit events nor memories by the wall clock', async () => {
        const o = owner();
        const job = compactJob(o, 'tick-1');
        const before = Date.now();
        await store.write(batch({ jobs: [job] }));
        const [entry] = await pendingOf(o);
        expect(entry?.job).toEqual(job);
        const at = Date.parse(entry!.recordedAt);
        expect(at).toBeGreaterThanOrEqual(before - 1000);
        expect(at).toBeLessThanOrEqual(Date.now() + 1000);
      });

      it('records a pending job id once, within a batch and across batches', async () => {
        const o = owner();
        const job = reflectJob(o, 'count', 'anchor-1');
        const other = reflectJob(o, 'negative', 'anchor-1');
        await store.write(
          batch({ jobs: [job, job], audit: [{ ...auditEventFixture('write', o), at: T(1) }] }),
        );
        // Same id again, with another payload: ignored, the first entry stays as it was.
        await store.write(
          batch({
            jobs: [{ ...job, payload: { reason: 'changed' } }, other],
            audit: [{ ...auditEventFixture('write', o), at: T(2) }],
          }),
        );
        expect(await pendingOf(o)).toEqual([
          { job, recordedAt: T(1) },
          { job: other, recordedAt: T(2) },
        ]);
      });

      it('concurrent writes lose no job and record a shared id once', async () => {
        const o = owner();
        const shared = reflectJob(o, 'count', 'shared');
        const own = Array.from({ length: 10 }, (_, i) => compactJob(o, `w${i}`));
        await Promise.all(
          own.map((job) =>
            store.write(
              batch({
                memories: [{ memory: memoryFixture(o), embedding: randomUnitVector(dims) }],
                jobs: [shared, job],
              }),
            ),
          ),
        );
        const ids = (await pendingOf(o)).map((e) => e.job.id);
        expect(ids).toHaveLength(11);
        expect(new Set(ids)).toEqual(new Set([shared.id, ...own.map((j) => j.id)]));
      });

      it('a failed write records no job (the batch is all or nothing)', async () => {
        const o = owner();
        const m = memoryFixture(o);
        await put([m]);
        const job = reflectJob(o, 'count', 'after-conflict');
        // Duplicate memory id: conflict.
        await expectCode(
          store.write(
            batch({
              memories: [
                { memory: memoryFixture(o), embedding: null },
                { memory: { ...memoryFixture(o), id: m.id }, embedding: null },
              ],
              jobs: [job],
            }),
          ),
          'conflict',
        );
        // A source the owner lacks: invalid_input.
        await expectCode(
          store.write(
            batch({
              memories: [
                {
                  memory: memoryFixture(o, { kind: 'summary', derivedFrom: ['no-such-memory'] }),
                  embedding: null,
                },
              ],
              jobs: [compactJob(o, 'after-invalid')],
            }),
          ),
          'invalid_input',
        );
        expect(await pendingOf(o)).toEqual([]);
        expect(await store.countMemories(o)).toBe(1);
      });

      it('refuses a job without an id before writing anything', async () => {
        const o = owner();
        const m = memoryFixture(o);
        await expectCode(
          store.write(
            batch({
              memories: [{ memory: m, embedding: null }],
              jobs: [{ ...compactJob(o, 'x'), id: ' ' }],
            }),
          ),
          'invalid_input',
        );
        expect(await store.getById(o, m.id)).toBeNull();
      });

      it('ack removes the relayed jobs, ignores unknown ids, and a removed id can be recorded again', async () => {
        const o = owner();
        const jobs = [compactJob(o, 'a'), compactJob(o, 'b'), compactJob(o, 'c')];
        await store.write(batch({ jobs, audit: [{ ...auditEventFixture('write', o), at: T(1) }] }));
        expect((await pendingOf(o)).map((e) => e.job.id)).toEqual(jobs.map((j) => j.id));

        await store.outboxAck([jobs[0]!.id, jobs[2]!.id, 'no-such-job']);
        expect((await pendingOf(o)).map((e) => e.job.id)).toEqual([jobs[1]!.id]);
        await store.outboxAck([jobs[0]!.id]);
        await store.outboxAck([]);
        expect((await pendingOf(o)).map((e) => e.job.id)).toEqual([jobs[1]!.id]);

        // No longer pending: the same id is a new entry, after the one still waiting.
        await store.write(
          batch({ jobs: [jobs[0]!], audit: [{ ...auditEventFixture('write', o), at: T(2) }] }),
        );
        expect(await pendingOf(o)).toEqual([
          { job: jobs[1]!, recordedAt: T(1) },
          { job: jobs[0]!, recordedAt: T(2) },
        ]);
      });

      it('outboxPending is oldest first across owners and honours its limit', async () => {
        const a = owner();
        const b = owner();
        const ja = compactJob(a, 'first');
        const jb = compactJob(b, 'second');
        const ja2 = compactJob(a, 'third');
        for (const job of [ja, jb, ja2]) await store.write(batch({ jobs: [job] }));
        expect((await pendingOf(a, b)).map((e) => e.job.id)).toEqual([ja.id, jb.id, ja2.id]);
        const all = await store.outboxPending(100_000);
        const at = (id: string): number => all.findIndex((e) => e.job.id === id);
        expect(at(ja.id)).toBeLessThan(at(jb.id));
        expect(await store.outboxPending(0)).toEqual([]);
        const one = await store.outboxPending(1);
        expect(one).toHaveLength(1);
        expect(one[0]).toEqual(all[0]);
      });

      it('a cascade records a rederive job naming the kind and the survivors, in its transaction', async () => {
        const o = owner();
        const e1 = await f.engine.remember(
          user,
          o,
          episode('Robin adopted a grey rescue greyhound'),
        );
        const e2 = await f.engine.remember(user, o, episode('Robin walks the dog along the canal'));
        const mixed = await f.engine.remember(
          user,
          o,
          derived('Robin has a greyhound and walks it by the canal', [e1.memory.id, e2.memory.id]),
        );
        // Derived from the deleted episode alone: deleted, nothing to rebuild from.
        await f.engine.remember(
          user,
          o,
          derived('Robin owns a greyhound', [e1.memory.id], { kind: 'rule' }),
        );

        const receipt = await f.engine.forget(user, o, [e1.memory.id]);
        expect(receipt.rederive).toEqual([
          { id: mixed.memory.id, kind: 'summary', tags: [], survivingSourceCount: 1 },
        ]);
        const rederive = (await pendingOf(o)).filter((e) => e.job.name === 'rederive');
        expect(rederive).toEqual([
          {
            job: {
              name: 'rederive',
              id: `rederive:${o}:${mixed.memory.id}:${receipt.at}`,
              ownerId: o,
              payload: {
                deletedDerivedId: mixed.memory.id,
                kind: 'summary',
                tags: [],
                survivingSources: [e2.memory.id],
              },
            },
            recordedAt: receipt.at,
          },
        ]);

        // The outbox holds the deleted summary's id, but it is not a trace:
        // it is a pointer for the job, like the audit log's, gone once relayed.
        expect(
          await store.findTraces(o, receipt.deletedMemoryIds, receipt.deletedContentHashes),
        ).toEqual([]);
        const check = await f.engine.verifyForgotten(user, o, {
          ids: receipt.deletedMemoryIds,
          contentHashes: receipt.deletedContentHashes,
        });
        expect(check.forgotten).toBe(true);
      });

      it('a cascade that fails records no job', async () => {
        const o = owner();
        await expectCode(
          store.deleteCascade({
            ownerId: o,
            rootIds: ['no-such-memory'],
            reason: 'forget',
            at: NOW,
            audit: [],
          }),
          'not_found',
        );
        expect(await pendingOf(o)).toEqual([]);
      });

      it('deleting memories leaves the outbox alone; forgetting the owner takes its pending jobs', async () => {
        const o = owner();
        const m = memoryFixture(o, { kind: 'episode' });
        const reflect = reflectJob(o, 'count', m.id);
        const reembed = reembedJob(o, 'model-y');
        await store.write(
          batch({
            memories: [{ memory: m, embedding: randomUnitVector(dims) }],
            audit: [{ ...auditEventFixture('write', o, [m.id]), at: T(3) }],
            jobs: [reflect],
          }),
        );
        await store.write(
          batch({
            memories: [{ memory: memoryFixture(o), embedding: null }],
            audit: [{ ...auditEventFixture('write', o), at: T(4) }],
            jobs: [reembed],
          }),
        );
        await f.engine.forget(user, o, [m.id]);
        // A deleted memory's jobs find out for themselves that it is gone.
        expect(await pendingOf(o)).toEqual([
          { job: reflect, recordedAt: T(3) },
          { job: reembed, recordedAt: T(4) },
        ]);
        const receipt = await f.engine.forgetOwner(user, o);
        expect(await store.countMemories(o)).toBe(0);
        // The owner's jobs name it, and nothing of it is left to work on.
        expect(await pendingOf(o)).toEqual([]);
        const events = await f.engine.auditList(operator, { ownerId: o });
        expect(events.at(-1)?.details).toMatchObject({ outboxJobsDeleted: 2 });
        expect(receipt.deletedMemoryIds).toHaveLength(1);
      });
    });

    describe('reflection bookkeeping', () => {
      it('lists live unreflected episodes oldest first, as full records, and counts them', async () => {
        const o = owner();
        const e1 = episodeAt(o, 1);
        // Same instant: insertion order decides.
        const e2 = episodeAt(o, 2);
        const e3 = episodeAt(o, 2);
        const late = episodeAt(o, 9);
        const fact = memoryFixture(o, { kind: 'fact', createdAt: T(0) });
        const expired = episodeAt(o, 0, { expiresAt: '2026-03-01T00:00:00.000Z' });
        const superseded = episodeAt(o, 0, { supersededBy: 'mem-newer', validTo: T(5) });
        const notYetValid = episodeAt(o, 0, { validFrom: '2026-12-01T00:00:00.000Z' });
        // Written out of time order: createdAt, not insertion, comes first.
        await put([late, e1, e2, fact, expired, superseded, notYetValid]);
        await put([e3]);

        const listed = await store.unreflectedEpisodes(o, { now: NOW, limit: 100 });
        expect(listed.map((m) => m.id)).toEqual([e1.id, e2.id, e3.id, late.id]);
        expect(listed).toEqual(await store.getByIds(o, [e1.id, e2.id, e3.id, late.id]));
        expect(listed[0]).toEqual(e1);
        expect(await store.countUnreflected(o, NOW)).toBe(4);
        // Counting stops where the caller's threshold is: a backlog costs no more.
        expect(await store.countUnreflected(o, NOW, 3)).toBe(3);
        expect(await store.countUnreflected(o, NOW, 10)).toBe(4);
        expect(
          (await store.unreflectedEpisodes(o, { now: NOW, limit: 2 })).map((m) => m.id),
        ).toEqual([e1.id, e2.id]);
        expect(await store.unreflectedEpisodes(o, { now: NOW, limit: 0 })).toEqual([]);
        // Before the expiry, the expired episode was live (and first).
        expect(await store.countUnreflected(o, '2026-02-01T00:00:00.000Z')).toBe(5);
        expect(await store.countUnreflected(f.owner(), NOW)).toBe(0);
      });

      it('a reflected mark hides episodes, in the write’s transaction, for their owner only', async () => {
        const o = owner();
        const p = owner();
        const [e1, e2, e3, e4] = [1, 2, 3, 4].map((i) =>
          memoryFixture(o, { kind: 'episode', createdAt: T(i) }),
        ) as [Memory, Memory, Memory, Memory];
        const pe = episodeAt(p, 1);
        await put([e1, e2, e3, e4]);
        await put([pe]);

        // The reflection's result and its marks in one batch; ids of another
        // owner (p's episode under o, o's episode under p) or unknown are ignored.
        const rule = memoryFixture(o, {
          kind: 'rule',
          authority: 'agent_inferred',
          derivedFrom: [e1.id, e2.id],
          createdAt: T(10),
        });
        await store.write(
          batch({
            memories: [{ memory: rule, embedding: randomUnitVector(dims) }],
            reflected: [
              { ownerId: o, ids: [e1.id, e2.id, pe.id, 'no-such-memory'], at: T(10) },
              { ownerId: p, ids: [e3.id], at: T(10) },
            ],
            jobs: [compactJob(o, rule.id)],
          }),
        );
        expect(
          (await store.unreflectedEpisodes(o, { now: NOW, limit: 10 })).map((m) => m.id),
        ).toEqual([e3.id, e4.id]);
        expect(await store.countUnreflected(o, NOW)).toBe(2);
        expect(
          (await store.unreflectedEpisodes(p, { now: NOW, limit: 10 })).map((m) => m.id),
        ).toEqual([pe.id]);
        expect(await store.countUnreflected(p, NOW)).toBe(1);

        // The marker is the store's bookkeeping, not part of the record.
        const [r1] = await store.getByIds(o, [e1.id]);
        expect(r1).toEqual(e1);
        expect(await store.getById(o, e1.id)).toEqual(e1);

        // A failed batch marks nothing.
        await expectCode(
          store.write(
            batch({
              memories: [{ memory: { ...memoryFixture(o), id: rule.id }, embedding: null }],
              reflected: [{ ownerId: o, ids: [e3.id], at: T(11) }],
            }),
          ),
          'conflict',
        );
        expect(await store.countUnreflected(o, NOW)).toBe(2);

        // A marks-only batch (no memories, no audit) is a valid write.
        await store.write(batch({ reflected: [{ ownerId: o, ids: [e3.id, e4.id], at: T(12) }] }));
        expect(await store.unreflectedEpisodes(o, { now: NOW, limit: 10 })).toEqual([]);
        expect(await store.countUnreflected(o, NOW)).toBe(0);
      });
    });

    describe('compaction reads', () => {
      it('recentSources lists live source memories newest first, as full records, up to the limit', async () => {
        const o = owner();
        const p = owner();
        const s1 = episodeAt(o, 1);
        const s2 = memoryFixture(o, { kind: 'fact', createdAt: T(2) });
        // Same instant: the later insertion is the newer.
        const s3 = episodeAt(o, 3);
        const s4 = episodeAt(o, 3);
        const late = episodeAt(o, 8);
        // Newer than every live source, and each one left out.
        const expired = episodeAt(o, 9, { expiresAt: '2026-03-01T00:00:00.000Z' });
        const superseded = memoryFixture(o, { createdAt: T(9), supersededBy: 'mem-newer' });
        const ended = memoryFixture(o, { createdAt: T(9), validTo: T(10) });
        const notYetValid = memoryFixture(o, {
          createdAt: T(9),
          validFrom: '2026-12-01T00:00:00.000Z',
        });
        const theirs = episodeAt(p, 9);
        // Derived memories (DERIVED_FROM of their own) are left out, however
        // new; their sources (inbound edges only) stay in.
        const rule = memoryFixture(o, {
          kind: 'rule',
          authority: 'agent_inferred',
          derivedFrom: [s1.id, s2.id],
          createdAt: T(10),
        });
        const summary = memoryFixture(o, {
          kind: 'summary',
          authority: 'agent_inferred',
          derivedFrom: [rule.id],
          createdAt: T(11),
        });
        // Written out of time order: createdAt, not insertion, comes first.
        await put([late, s1, s2, s3, expired, superseded, ended, notYetValid]);
        await put([s4]);
        await put([theirs]);
        await put([rule]);
        await put([summary]);

        const ids = [late.id, s4.id, s3.id, s2.id, s1.id];
        const listed = await store.recentSources(o, { now: NOW, limit: 100 });
        expect(listed.map((m) => m.id)).toEqual(ids);
        expect(listed).toEqual(await store.getByIds(o, ids));
        expect(listed[0]).toEqual(late);
        // The limit counts live sources: the newer memories left out take no slot.
        expect((await store.recentSources(o, { now: NOW, limit: 2 })).map((m) => m.id)).toEqual([
          late.id,
          s4.id,
        ]);
        expect((await store.recentSources(o, { now: NOW, limit: 5 })).map((m) => m.id)).toEqual(
          ids,
        );
        expect(await store.recentSources(o, { now: NOW, limit: 0 })).toEqual([]);
        // Before the expiry, the expired memory was live (and newest).
        expect(
          (await store.recentSources(o, { now: '2026-02-01T00:00:00.000Z', limit: 100 })).map(
            (m) => m.id,
          ),
        ).toEqual([expired.id, ...ids]);
        expect((await store.recentSources(p, { now: NOW, limit: 100 })).map((m) => m.id)).toEqual([
          theirs.id,
        ]);
        expect(await store.recentSources(f.owner(), { now: NOW, limit: 100 })).toEqual([]);
        await expectCode(store.recentSources(o, { now: NOW, limit: -1 }), 'invalid_input');
        await expectCode(store.recentSources(o, { now: NOW, limit: 1.5 }), 'invalid_input');
      });
    });

    describe('re-embedding', () => {
      it('lists memories of another model oldest first, and replaceEmbeddings moves what searchVector finds', async () => {
        const o = owner();
        const p = owner();
        const m1 = memoryFixture(o, { embeddingModel: 'model-a', createdAt: T(1) });
        const m2 = memoryFixture(o, { embeddingModel: 'model-b', createdAt: T(2) });
        const m3 = memoryFixture(o, { embeddingModel: null, createdAt: T(3) });
        const m4 = memoryFixture(o, { embeddingModel: 'model-b', createdAt: T(4) });
        const pm = memoryFixture(p, { embeddingModel: 'model-a', createdAt: T(1) });
        const v1 = randomUnitVector(dims);
        const pv = randomUnitVector(dims);
        await put(
          [m4, m2, m1, m3],
          new Map([
            [m1.id, v1],
            [m3.id, null],
          ]),
        );
        await put([pm], new Map([[pm.id, pv]]));

        expect(await store.staleEmbeddings(o, 'model-b', 10)).toEqual([m1.id, m3.id]);
        expect(await store.staleEmbeddings(o, 'model-c', 10)).toEqual([m1.id, m2.id, m3.id, m4.id]);
        expect(await store.staleEmbeddings(o, 'model-c', 2)).toEqual([m1.id, m2.id]);
        expect(await store.staleEmbeddings(p, 'model-b', 10)).toEqual([pm.id]);

        const search = (owner: string, v: Float32Array) =>
          store.searchVector(owner, v, { limit: 10, now: NOW });
        const top = await search(o, v1);
        expect(top[0]?.id).toBe(m1.id);
        expect(top[0]!.score).toBeGreaterThan(0.99);
        expect((await search(o, randomUnitVector(dims))).map((h) => h.id)).not.toContain(m3.id);

        const w1 = randomUnitVector(dims);
        const w3 = randomUnitVector(dims);
        await store.replaceEmbeddings(o, [
          { id: m1.id, embedding: w1, model: 'model-b' },
          // A memory stored without a vector gets one.
          { id: m3.id, embedding: w3, model: 'model-b' },
          // Another owner's memory and an unknown id: ignored.
          { id: pm.id, embedding: w1, model: 'model-b' },
          { id: 'no-such-memory', embedding: w1, model: 'model-b' },
        ]);

        const byNew = await search(o, w1);
        expect(byNew[0]?.id).toBe(m1.id);
        expect(byNew[0]!.score).toBeGreaterThan(0.99);
        const byOld = await search(o, v1);
        expect(byOld.find((h) => h.id === m1.id)?.score ?? 0).toBeLessThan(0.5);
        const third = await search(o, w3);
        expect(third[0]?.id).toBe(m3.id);
        expect(third[0]!.score).toBeGreaterThan(0.99);

        expect((await store.getById(o, m1.id))?.embeddingModel).toBe('model-b');
        expect((await store.getById(o, m3.id))?.embeddingModel).toBe('model-b');
        expect(await store.staleEmbeddings(o, 'model-b', 10)).toEqual([]);

        // The other owner's memory kept its vector and model.
        expect((await store.getById(p, pm.id))?.embeddingModel).toBe('model-a');
        const theirs = await search(p, pv);
        expect(theirs[0]?.id).toBe(pm.id);
        expect(theirs[0]!.score).toBeGreaterThan(0.99);
        expect((await search(p, w1)).find((h) => h.id === pm.id)?.score ?? 0).toBeLessThan(0.5);
      });

      it('replaceEmbeddings refuses a vector of the wrong size and changes nothing', async () => {
        const o = owner();
        const m1 = memoryFixture(o, { embeddingModel: 'model-a' });
        const m2 = memoryFixture(o, { embeddingModel: 'model-a' });
        await put([m1, m2]);
        await expectCode(
          store.replaceEmbeddings(o, [
            { id: m1.id, embedding: randomUnitVector(dims), model: 'model-b' },
            { id: m2.id, embedding: randomUnitVector(dims + 1), model: 'model-b' },
          ]),
          'invalid_input',
        );
        expect(await store.staleEmbeddings(o, 'model-b', 10)).toEqual([m1.id, m2.id]);
        expect((await store.getById(o, m1.id))?.embeddingModel).toBe('model-a');
        await store.replaceEmbeddings(o, []);
      });

      it("getEmbeddings returns the owner's stored vectors, and the new one after replaceEmbeddings", async () => {
        const o = owner();
        const p = owner();
        const m1 = memoryFixture(o, { embeddingModel: 'model-a' });
        const m2 = memoryFixture(o, { embeddingModel: 'model-a' });
        const m3 = memoryFixture(o, { embeddingModel: null });
        const pm = memoryFixture(p, { embeddingModel: 'model-a' });
        const v1 = randomUnitVector(dims);
        const v2 = randomUnitVector(dims);
        await put(
          [m1, m2, m3],
          new Map([
            [m1.id, v1],
            [m2.id, v2],
            [m3.id, null],
          ]),
        );
        await put([pm], new Map([[pm.id, randomUnitVector(dims)]]));

        /** id -> vector as plain numbers; a float32 vector round-trips bit for bit. */
        const got = async (ids: string[]): Promise<Map<string, number[]>> => {
          const rows = await store.getEmbeddings(o, ids);
          for (const r of rows) {
            expect(r.embedding).toBeInstanceOf(Float32Array);
            expect(r.embedding.length).toBe(dims);
          }
          expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
          return new Map(rows.map((r) => [r.id, Array.from(r.embedding)]));
        };

        // m3 has no vector; the other owner's id and an unknown id are left out.
        const before = await got([m1.id, m2.id, m3.id, pm.id, 'no-such-memory', m1.id]);
        expect([...before.keys()].sort()).toEqual([m1.id, m2.id].sort());
        expect(before.get(m1.id)).toEqual(Array.from(v1));
        expect(before.get(m2.id)).toEqual(Array.from(v2));
        expect(await store.getEmbeddings(o, [])).toEqual([]);
        expect(await store.getEmbeddings(p, [m1.id, m2.id])).toEqual([]);

        const w1 = randomUnitVector(dims);
        const w3 = randomUnitVector(dims);
        await store.replaceEmbeddings(o, [
          { id: m1.id, embedding: w1, model: 'model-b' },
          { id: m3.id, embedding: w3, model: 'model-b' },
        ]);
        const after = await got([m1.id, m2.id, m3.id, pm.id]);
        expect([...after.keys()].sort()).toEqual([m1.id, m2.id, m3.id].sort());
        expect(after.get(m1.id)).toEqual(Array.from(w1));
        expect(after.get(m2.id)).toEqual(Array.from(v2));
        expect(after.get(m3.id)).toEqual(Array.from(w3));
      });
    });
  });
}
