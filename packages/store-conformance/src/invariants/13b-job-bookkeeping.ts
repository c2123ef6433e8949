// The bookkeeping of background jobs (DESIGN.md, "Modes"): reflection
// reads the live episodes it has not consumed yet and marks those it
// consumed; compaction reads recent live sources; re-embedding finds the
// memories of another model, swaps their vectors and reads them back.
// Stores are shared between tests, so every assertion keeps to the test's
// own random owners.
import { describe, expect, it } from 'vitest';
import { type Memory } from '@keepgraph/core';
import { compactJob } from '@keepgraph/core/jobs';
import { memoryFixture, randomUnitVector } from '@keepgraph/core/testing';
import { batchOf, conformanceSuite, expectCode, ownersWithJobs, putMemories } from '../harness.ts';

const T = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
const NOW = '2026-06-01T00:00:00.000Z';

/** An episode of `ownerId` created at minute `minute`, with `over` on top. */
const episodeAt = (ownerId: string, minute: number, over: Partial<Memory> = {}): Memory =>
  memoryFixture(ownerId, { kind: 'episode', createdAt: T(minute), ...over });

export const jobBookkeepingSuite = conformanceSuite('background-job bookkeeping', (f) => {
  const owner = ownersWithJobs(f);
  const dims = () => f.engine.deps.embedder.dimensions;

  /** Write memories with random vectors, or the one `vectors` gives (null: none). */
  const put = (ms: Memory[], vectors: Map<string, Float32Array | null> = new Map()) =>
    putMemories(f, ms, (m) =>
      vectors.has(m.id) ? (vectors.get(m.id) ?? null) : randomUnitVector(dims()),
    );

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

      const listed = await f.store.unreflectedEpisodes(o, { now: NOW, limit: 100 });
      expect(listed.map((m) => m.id)).toEqual([e1.id, e2.id, e3.id, late.id]);
      expect(listed).toEqual(await f.store.getByIds(o, [e1.id, e2.id, e3.id, late.id]));
      expect(listed[0]).toEqual(e1);
      expect(await f.store.countUnreflected(o, NOW)).toBe(4);
      // Counting stops where the caller's threshold is: a backlog costs no more.
      expect(await f.store.countUnreflected(o, NOW, 3)).toBe(3);
      expect(await f.store.countUnreflected(o, NOW, 10)).toBe(4);
      expect(
        (await f.store.unreflectedEpisodes(o, { now: NOW, limit: 2 })).map((m) => m.id),
      ).toEqual([e1.id, e2.id]);
      expect(await f.store.unreflectedEpisodes(o, { now: NOW, limit: 0 })).toEqual([]);
      // Before the expiry, the expired episode was live (and first).
      expect(await f.store.countUnreflected(o, '2026-02-01T00:00:00.000Z')).toBe(5);
      expect(await f.store.countUnreflected(f.owner(), NOW)).toBe(0);
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
      await f.store.write(
        batchOf({
          memories: [{ memory: rule, embedding: randomUnitVector(dims()) }],
          reflected: [
            { ownerId: o, ids: [e1.id, e2.id, pe.id, 'no-such-memory'], at: T(10) },
            { ownerId: p, ids: [e3.id], at: T(10) },
          ],
          jobs: [compactJob(o, rule.id)],
        }),
      );
      expect(
        (await f.store.unreflectedEpisodes(o, { now: NOW, limit: 10 })).map((m) => m.id),
      ).toEqual([e3.id, e4.id]);
      expect(await f.store.countUnreflected(o, NOW)).toBe(2);
      expect(
        (await f.store.unreflectedEpisodes(p, { now: NOW, limit: 10 })).map((m) => m.id),
      ).toEqual([pe.id]);
      expect(await f.store.countUnreflected(p, NOW)).toBe(1);

      // The marker is the store's bookkeeping, not part of the record.
      const [r1] = await f.store.getByIds(o, [e1.id]);
      expect(r1).toEqual(e1);
      expect(await f.store.getById(o, e1.id)).toEqual(e1);

      // A failed batch marks nothing.
      await expectCode(
        f.store.write(
          batchOf({
            memories: [{ memory: { ...memoryFixture(o), id: rule.id }, embedding: null }],
            reflected: [{ ownerId: o, ids: [e3.id], at: T(11) }],
          }),
        ),
        'conflict',
      );
      expect(await f.store.countUnreflected(o, NOW)).toBe(2);

      // A marks-only batch (no memories, no audit) is a valid write.
      await f.store.write(batchOf({ reflected: [{ ownerId: o, ids: [e3.id, e4.id], at: T(12) }] }));
      expect(await f.store.unreflectedEpisodes(o, { now: NOW, limit: 10 })).toEqual([]);
      expect(await f.store.countUnreflected(o, NOW)).toBe(0);
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
      const listed = await f.store.recentSources(o, { now: NOW, limit: 100 });
      expect(listed.map((m) => m.id)).toEqual(ids);
      expect(listed).toEqual(await f.store.getByIds(o, ids));
      expect(listed[0]).toEqual(late);
      // The limit counts live sources: the newer memories left out take no slot.
      expect((await f.store.recentSources(o, { now: NOW, limit: 2 })).map((m) => m.id)).toEqual([
        late.id,
        s4.id,
      ]);
      expect((await f.store.recentSources(o, { now: NOW, limit: 5 })).map((m) => m.id)).toEqual(
        ids,
      );
      expect(await f.store.recentSources(o, { now: NOW, limit: 0 })).toEqual([]);
      // Before the expiry, the expired memory was live (and newest).
      expect(
        (await f.store.recentSources(o, { now: '2026-02-01T00:00:00.000Z', limit: 100 })).map(
          (m) => m.id,
        ),
      ).toEqual([expired.id, ...ids]);
      expect((await f.store.recentSources(p, { now: NOW, limit: 100 })).map((m) => m.id)).toEqual([
        theirs.id,
      ]);
      expect(await f.store.recentSources(f.owner(), { now: NOW, limit: 100 })).toEqual([]);
      await expectCode(f.store.recentSources(o, { now: NOW, limit: -1 }), 'invalid_input');
      await expectCode(f.store.recentSources(o, { now: NOW, limit: 1.5 }), 'invalid_input');
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
      const v1 = randomUnitVector(dims());
      const pv = randomUnitVector(dims());
      await put(
        [m4, m2, m1, m3],
        new Map([
          [m1.id, v1],
          [m3.id, null],
        ]),
      );
      await put([pm], new Map([[pm.id, pv]]));

      expect(await f.store.staleEmbeddings(o, 'model-b', 10)).toEqual([m1.id, m3.id]);
      expect(await f.store.staleEmbeddings(o, 'model-c', 10)).toEqual([m1.id, m2.id, m3.id, m4.id]);
      expect(await f.store.staleEmbeddings(o, 'model-c', 2)).toEqual([m1.id, m2.id]);
      expect(await f.store.staleEmbeddings(p, 'model-b', 10)).toEqual([pm.id]);

      const search = (owner: string, v: Float32Array) =>
        f.store.searchVector(owner, v, { limit: 10, now: NOW });
      const top = await search(o, v1);
      expect(top[0]?.id).toBe(m1.id);
      expect(top[0]!.score).toBeGreaterThan(0.99);
      expect((await search(o, randomUnitVector(dims()))).map((h) => h.id)).not.toContain(m3.id);

      const w1 = randomUnitVector(dims());
      const w3 = randomUnitVector(dims());
      await f.store.replaceEmbeddings(o, [
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

      expect((await f.store.getById(o, m1.id))?.embeddingModel).toBe('model-b');
      expect((await f.store.getById(o, m3.id))?.embeddingModel).toBe('model-b');
      expect(await f.store.staleEmbeddings(o, 'model-b', 10)).toEqual([]);

      // The other owner's memory kept its vector and model.
      expect((await f.store.getById(p, pm.id))?.embeddingModel).toBe('model-a');
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
        f.store.replaceEmbeddings(o, [
          { id: m1.id, embedding: randomUnitVector(dims()), model: 'model-b' },
          { id: m2.id, embedding: randomUnitVector(dims() + 1), model: 'model-b' },
        ]),
        'invalid_input',
      );
      expect(await f.store.staleEmbeddings(o, 'model-b', 10)).toEqual([m1.id, m2.id]);
      expect((await f.store.getById(o, m1.id))?.embeddingModel).toBe('model-a');
      await f.store.replaceEmbeddings(o, []);
    });

    it("getEmbeddings returns the owner's stored vectors, and the new one after replaceEmbeddings", async () => {
      const o = owner();
      const p = owner();
      const m1 = memoryFixture(o, { embeddingModel: 'model-a' });
      const m2 = memoryFixture(o, { embeddingModel: 'model-a' });
      const m3 = memoryFixture(o, { embeddingModel: null });
      const pm = memoryFixture(p, { embeddingModel: 'model-a' });
      const v1 = randomUnitVector(dims());
      const v2 = randomUnitVector(dims());
      await put(
        [m1, m2, m3],
        new Map([
          [m1.id, v1],
          [m2.id, v2],
          [m3.id, null],
        ]),
      );
      await put([pm], new Map([[pm.id, randomUnitVector(dims())]]));

      /** id -> vector as plain numbers; a float32 vector round-trips bit for bit. */
      const got = async (ids: string[]): Promise<Map<string, number[]>> => {
        const rows = await f.store.getEmbeddings(o, ids);
        for (const r of rows) {
          expect(r.embedding).toBeInstanceOf(Float32Array);
          expect(r.embedding.length).toBe(dims());
        }
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
        return new Map(rows.map((r) => [r.id, Array.from(r.embedding)]));
      };

      // m3 has no vector; the other owner's id and an unknown id are left out.
      const before = await got([m1.id, m2.id, m3.id, pm.id, 'no-such-memory', m1.id]);
      expect([...before.keys()].sort()).toEqual([m1.id, m2.id].sort());
      expect(before.get(m1.id)).toEqual(Array.from(v1));
      expect(before.get(m2.id)).toEqual(Array.from(v2));
      expect(await f.store.getEmbeddings(o, [])).toEqual([]);
      expect(await f.store.getEmbeddings(p, [m1.id, m2.id])).toEqual([]);

      const w1 = randomUnitVector(dims());
      const w3 = randomUnitVector(dims());
      await f.store.replaceEmbeddings(o, [
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
