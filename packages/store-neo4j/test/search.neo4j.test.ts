// Owner-scoped search on Neo4j: a small owner among a big one keeps its
// recall on both vector paths (exact scoring and the oversampled ANN
// index), liveness filters apply, full-text queries are owner-scoped
// and never read as Lucene syntax, and both entity plans give one answer.
import type { MemoryWrite } from '@keepgraph/core/ports';
import { hubEntityFixture } from '@keepgraph/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Neo4jMemoryStore } from '../src/index.ts';
import {
  FAR,
  NOW,
  T0,
  batchOf,
  expectHubEntityPlans,
  forgetRequest,
  makeMemory,
  near,
  newOwner,
  openStore,
  randomUnitVector,
  randomWord,
} from './helpers.ts';
import { neo4jUri, releaseNeo4j } from './neo4j-uri.ts';

let store: Neo4jMemoryStore;
let done: () => Promise<void>;
const BIG = 5000;
const big = newOwner();
const small = newOwner();
let bigWrites: MemoryWrite[] = [];
let smallWrites: MemoryWrite[] = [];
/** Owners a test made beside the two above, deleted with them. */
const extraOwners: string[] = [];

beforeAll(async () => {
  ({ store, done } = await openStore(await neo4jUri()));
  bigWrites = Array.from({ length: BIG }, (_, i) => ({
    memory: makeMemory(big, { text: `big owner note ${i} lantern` }),
    embedding: randomUnitVector(),
  }));
  for (let i = 0; i < BIG; i += 500) await store.write(batchOf(bigWrites.slice(i, i + 500)));
  smallWrites = Array.from({ length: 10 }, (_, i) => ({
    memory: makeMemory(small, { text: `small owner note ${i} lantern` }),
    embedding: randomUnitVector(),
  }));
  await store.write(batchOf(smallWrites));
}, 600_000);

afterAll(async () => {
  for (const owner of [big, small, ...extraOwners]) {
    const ids = await store.listIds(owner);
    if (ids.length)
      await store.deleteCascade(forgetRequest(owner, ids, { reason: 'forget_owner' }));
  }
  await done();
  await releaseNeo4j();
}, 600_000);

describe('search (neo4j)', () => {
  const opts = { limit: 5, now: NOW };

  it('a small owner among 5,000 memories finds its nearest first, on both paths', async () => {
    for (const target of [smallWrites[3]!, smallWrites[7]!]) {
      const q = near(target.embedding!);
      for (const path of ['exact', 'index'] as const) {
        const hits = await store.searchVectorVia(path, small, q, opts);
        expect(hits[0]?.id).toBe(target.memory.id);
        expect(hits).toHaveLength(5);
        for (const h of hits) expect(smallWrites.some((w) => w.memory.id === h.id)).toBe(true);
        expect(hits[0]!.score).toBeGreaterThan(0.9);
        expect(hits[0]!.score).toBeLessThanOrEqual(1.0001);
      }
    }
    // The default choice for a small owner is exact; both agree on the order.
    const q = near(smallWrites[5]!.embedding!);
    const exact = await store.searchVectorVia('exact', small, q, opts);
    expect((await store.searchVector(small, q, opts)).map((h) => h.id)).toEqual(
      exact.map((h) => h.id),
    );
    expect((await store.searchVectorVia('index', small, q, opts)).map((h) => h.id)).toEqual(
      exact.map((h) => h.id),
    );
    const time = async (path: 'exact' | 'index'): Promise<number> => {
      const t = performance.now();
      for (let i = 0; i < 5; i++) await store.searchVectorVia(path, small, q, opts);
      return (performance.now() - t) / 5;
    };
    console.log(
      `[timing] vector search, owner of 10 among ${BIG}: exact ${(await time('exact')).toFixed(0)} ms, index ${(await time('index')).toFixed(0)} ms (mean of 5)`,
    );
  });

  it('the big owner finds its own nearest on both paths, and times them', async () => {
    const target = bigWrites[1234]!;
    const q = near(target.embedding!);
    const time = async (path: 'exact' | 'index'): Promise<number> => {
      await store.searchVectorVia(path, big, q, opts); // warm the plan
      const t = performance.now();
      for (let i = 0; i < 5; i++)
        expect((await store.searchVectorVia(path, big, q, opts))[0]?.id).toBe(target.memory.id);
      return (performance.now() - t) / 5;
    };
    const exactMs = await time('exact');
    const indexMs = await time('index');
    console.log(
      `[timing] vector search, owner of ${BIG}: exact ${exactMs.toFixed(0)} ms, index ${indexMs.toFixed(0)} ms (mean of 5)`,
    );
  });

  it('never returns expired, superseded or not-yet-valid memories', async () => {
    const o = newOwner();
    const v = randomUnitVector();
    const word = randomWord();
    const live = makeMemory(o, { text: `live ${word}` });
    const expired = makeMemory(o, { text: `expired ${word}`, expiresAt: T0 });
    const future = makeMemory(o, { text: `future ${word}`, validFrom: FAR });
    const superseded = makeMemory(o, { text: `superseded ${word}` });
    await store.write(
      batchOf([live, expired, future, superseded].map((m) => ({ memory: m, embedding: v }))),
    );
    await store.write(
      batchOf([], { supersede: [{ ownerId: o, id: superseded.id, by: live.id, at: T0 }] }),
    );
    for (const path of ['exact', 'index'] as const) {
      expect(
        (await store.searchVectorVia(path, o, v, { limit: 10, now: NOW })).map((h) => h.id),
      ).toEqual([live.id]);
    }
    expect((await store.searchText(o, word, { limit: 10, now: NOW })).map((h) => h.id)).toEqual([
      live.id,
    ]);
  });

  it('full text is owner-scoped and reads Lucene syntax as words', async () => {
    const hits = await store.searchText(small, 'lantern', { limit: 20, now: NOW });
    expect(hits).toHaveLength(10);
    for (const h of hits) expect(smallWrites.some((w) => w.memory.id === h.id)).toBe(true);
    for (const q of [
      '*:*',
      'text:*',
      'ownerKey:* OR text:lantern',
      '"',
      '\\',
      '(',
      'AND OR NOT',
      '~2 ^3 [a TO z]',
    ]) {
      const found = await store.searchText(small, q, { limit: 20, now: NOW });
      for (const h of found) expect(smallWrites.some((w) => w.memory.id === h.id)).toBe(true);
    }
    expect(await store.searchText(small, '*:*', { limit: 20, now: NOW })).toEqual([]);
  });

  it('answers the same through both plans, and walks newest first for a hub entity', async () => {
    const o = newOwner();
    // 300 of 400 memories about Casey (core/testing's hubEntityFixture).
    const hub = hubEntityFixture((over) => makeMemory(o, over), NOW);
    await store.write(batchOf(hub.memories));
    extraOwners.push(o);
    await expectHubEntityPlans(store, o, hub.expected);
  });
});
