// The candidate searches: vector (owner-partitioned, cosine similarity),
// full text (BM25, safe against FTS syntax) and entity names; all of them
// skip expired, superseded and not-yet-valid memories.
import { hubEntityFixture } from '@keepgraph/core/testing';
import { describe, expect, it } from 'vitest';
import type { SqliteMemoryStore } from '../src/index.ts';
import { toFtsMatch } from '../src/index.ts';
import { FULL_TEXT_WINDOW } from '../src/search-text.ts';
import { ownerTag, ownerTaggedText } from '../src/owner-terms.ts';
import {
  DIM,
  NOW,
  T0,
  axis,
  batchOf,
  expectHubEntityPlans,
  makeMemory,
  newOwner,
  storeAround,
} from './helpers.ts';

let store: SqliteMemoryStore;
storeAround((opened) => ({ store } = opened), 'all');

const opts = { limit: 10, now: NOW };

describe('searchVector', () => {
  it('returns cosine similarity within the owner’s partition only', async () => {
    const a = newOwner();
    const b = newOwner();
    const a0 = makeMemory(a);
    const a1 = makeMemory(a);
    const b0 = makeMemory(b);
    await store.write(
      batchOf([
        { memory: a0, embedding: axis(0) },
        { memory: a1, embedding: axis(1) },
      ]),
    );
    await store.write(batchOf([{ memory: b0, embedding: axis(0) }]));

    const hits = await store.searchVector(a, axis(0), opts);
    expect(hits.map((h) => h.id)).toEqual([a0.id, a1.id]);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits[1]!.score).toBeCloseTo(0, 5);
    expect((await store.searchVector(b, axis(0), opts)).map((h) => h.id)).toEqual([b0.id]);
    expect(await store.searchVector(newOwner(), axis(0), opts)).toEqual([]);
    expect((await store.searchVector(a, axis(0), { ...opts, limit: 1 })).map((h) => h.id)).toEqual([
      a0.id,
    ]);
  });

  it('skips expired, superseded and not-yet-valid memories, even when they are nearest', async () => {
    const o = newOwner();
    const live = makeMemory(o);
    const expired = makeMemory(o, { expiresAt: T0 });
    const future = makeMemory(o, { validFrom: '2027-01-01T00:00:00.000Z' });
    const old = makeMemory(o, { key: 'k' });
    const closed = makeMemory(o, { validTo: T0 });
    const near = new Float32Array(DIM).fill(0);
    near[0] = 1;
    near[1] = 0.2;
    await store.write(
      batchOf([
        { memory: live, embedding: near },
        { memory: expired, embedding: axis(0) },
        { memory: future, embedding: axis(0) },
        { memory: old, embedding: axis(0) },
        { memory: closed, embedding: axis(0) },
      ]),
    );
    const newer = makeMemory(o, { key: 'k', supersedes: old.id });
    await store.write(
      batchOf([{ memory: newer, embedding: axis(5) }], {
        supersede: [{ ownerId: o, id: old.id, by: newer.id, at: T0 }],
      }),
    );
    const hits = await store.searchVector(o, axis(0), { limit: 1, now: NOW });
    expect(hits.map((h) => h.id)).toEqual([live.id]);
  });

  it('rejects a query vector of the wrong dimension', async () => {
    await expect(
      store.searchVector(newOwner(), new Float32Array(DIM + 1), opts),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});

describe('searchText', () => {
  it('ranks BM25 hits (higher is better), stems words, and stays within the owner', async () => {
    const o = newOwner();
    const best = makeMemory(o, { text: 'running shoes for running on trails' });
    const some = makeMemory(o, { text: 'I bought new shoes yesterday' });
    const none = makeMemory(o, { text: 'a quiet afternoon with a book' });
    const other = makeMemory(newOwner(), { text: 'running shoes' });
    await store.write(batchOf([best, some, none]));
    await store.write(batchOf([other]));
    const hits = await store.searchText(o, 'Runs in shoes?', opts);
    expect(hits.map((h) => h.id)).toEqual([best.id, some.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[1]!.score).toBeGreaterThan(0);
  });

  it('treats FTS syntax in the query as plain words', async () => {
    const o = newOwner();
    const m = makeMemory(o, { text: 'near the river OR by the sea' });
    await store.write(batchOf([m]));
    for (const q of [
      '"',
      '""',
      '*',
      'river*',
      'NEAR(',
      'NEAR(river sea)',
      'OR',
      'AND NOT',
      'text:river',
      '^river',
      '(river',
      'river)"',
      "'; DROP TABLE memories; --",
      '{owner_id}: x',
    ]) {
      const hits = await store.searchText(o, q, opts);
      expect(Array.isArray(hits), q).toBe(true);
    }
    expect((await store.searchText(o, 'NEAR(river', opts)).map((h) => h.id)).toEqual([m.id]);
    expect((await store.searchText(o, '"sea', opts)).map((h) => h.id)).toEqual([m.id]);
    expect(await store.searchText(o, '', opts)).toEqual([]);
    expect(await store.searchText(o, ' *"()^: ', opts)).toEqual([]);
    expect(await store.countMemories(o)).toBe(1);
  });

  it("builds an OR of the owner's quoted, tagged tokens", () => {
    const t = ownerTag('o');
    expect(t).toMatch(/^[bcdfghjkmnpqrtvw]{12}$/);
    expect(toFtsMatch('Hello, "world" NEAR(x*)', 'o')).toBe(
      `"${t}hello" OR "${t}world" OR "${t}near" OR "${t}x"`,
    );
    expect(toFtsMatch('!!!', 'o')).toBeNull();
  });

  it('tags every word of the indexed text with its owner, and stems tagged words as bare ones', async () => {
    expect(ownerTag('alex')).not.toBe(ownerTag('bob'));
    expect(ownerTaggedText('o', "Ünïcode café, don't 42!")).toBe(
      ['Ünïcode', ' ', 'café', ', ', 'don', "'", 't', ' ', '42', '!']
        .map((w) => (/[\p{L}\p{N}]/u.test(w) ? ownerTag('o') + w : w))
        .join(''),
    );
    const a = newOwner();
    const b = newOwner();
    const ma = makeMemory(a, { text: 'The runners kept running past the café' });
    const mb = makeMemory(b, { text: 'The runners kept running past the café' });
    await store.write(batchOf([ma, mb]));
    // porter: "run" finds "runners"/"running"; diacritics folded; never another owner's.
    for (const q of ['run', 'RUNNING', 'cafe'])
      expect(
        (await store.searchText(a, q, opts)).map((h) => h.id),
        q,
      ).toEqual([ma.id]);
    expect((await store.searchText(b, 'run', opts)).map((h) => h.id)).toEqual([mb.id]);
  });

  it('ranks only the newest FULL_TEXT_WINDOW matches of a query, and every match of a smaller owner', async () => {
    const owner = newOwner();
    // The oldest memory is the best BM25 match; FULL_TEXT_WINDOW newer ones follow it.
    const oldest = makeMemory(owner, { text: 'zebra zebra zebra' });
    await store.write(batchOf([oldest]));
    const ranked = async () =>
      (await store.searchText(owner, 'zebra', { limit: 1, now: NOW }))[0]!.id;
    const newer = Array.from({ length: FULL_TEXT_WINDOW }, (_, i) =>
      makeMemory(owner, { text: `a zebra crossed street number ${i} of the long town` }),
    );
    await store.write(batchOf(newer.slice(0, -1)));
    expect(await ranked()).toBe(oldest.id);
    await store.write(batchOf(newer.slice(-1)));
    expect(await ranked()).not.toBe(oldest.id);
    // Outside the window it is not ranked at all (vector and entity search still reach it).
    const all = await store.searchText(owner, 'zebra', { limit: FULL_TEXT_WINDOW + 1, now: NOW });
    expect(all).toHaveLength(FULL_TEXT_WINDOW);
    expect(all.map((h) => h.id)).not.toContain(oldest.id);
  });

  it('skips expired and superseded memories', async () => {
    const o = newOwner();
    const expired = makeMemory(o, { text: 'zebra crossing', expiresAt: T0 });
    const superseded = makeMemory(o, { text: 'zebra stripes', supersededBy: 'x', validTo: T0 });
    const live = makeMemory(o, { text: 'zebra at the zoo' });
    await store.write(batchOf([expired, superseded, live]));
    expect((await store.searchText(o, 'zebra', opts)).map((h) => h.id)).toEqual([live.id]);
  });
});

describe('searchEntities', () => {
  it('finds live memories about (or relating) the named entities, case-insensitively', async () => {
    const o = newOwner();
    const about = makeMemory(o, { about: [{ name: 'Alice Smith', type: 'person' }] });
    const relates = makeMemory(o, {
      relations: [
        {
          subject: { name: 'User', type: 'person' },
          type: 'KNOWS',
          object: { name: 'alice  smith', type: 'person' },
        },
      ],
    });
    const expired = makeMemory(o, {
      about: [{ name: 'Alice Smith', type: 'person' }],
      expiresAt: T0,
    });
    const unrelated = makeMemory(o, { about: [{ name: 'Bob', type: 'person' }] });
    const otherOwner = makeMemory(newOwner(), { about: [{ name: 'Alice Smith', type: 'person' }] });
    await store.write(batchOf([about, relates, expired, unrelated]));
    await store.write(batchOf([otherOwner]));
    const hits = await store.searchEntities(o, ['ALICE SMITH', 'nobody'], opts);
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set([about.id, relates.id]));
    expect(hits.every((h) => h.score === 1)).toBe(true);
    expect(await store.searchEntities(o, [], opts)).toEqual([]);
  });

  it('answers the same through both plans, and walks newest first for a hub entity', async () => {
    const o = newOwner();
    // 300 of 400 memories about Casey (core/testing's hubEntityFixture).
    const hub = hubEntityFixture((over) => makeMemory(o, over), NOW);
    await store.write(batchOf(hub.memories));
    await expectHubEntityPlans(store, o, hub.expected);
  });
});
