// deleteCascade(): the inbound DERIVED_FROM closure over a 3-level DAG with
// fan-out, everything hanging off it, the re-derive list, traces before and
// none after, owner scoping, and the audit summary.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Memory } from '@keepgraph/core';
import type { SqliteMemoryStore } from '../src/index.ts';
import { rawContent, rawFilesAsIs } from '../src/testing.ts';
import {
  DIM,
  FAR,
  NOW,
  T0,
  auditEvent,
  batchOf,
  makeMemory,
  newOwner,
  storeAround,
} from './helpers.ts';

let store: SqliteMemoryStore;
let path: string;
storeAround((opened) => ({ store, path } = opened));

const user = { name: 'User', type: 'person' };
const peanuts = { name: 'Peanuts', type: 'food' };
const tea = { name: 'Tea', type: 'drink' };

/**
 *   level 0   e1   e2   e3   e4
 *   level 1   f1(e1,e2)  f2(e1)  f3(e3)
 *   level 2   s1(f1,f2,e3)  s2(f2)
 *   level 3   r1(s1,e4)
 */
async function buildDag(owner: string) {
  const e1 = makeMemory(owner, {
    kind: 'episode',
    text: 'I am allergic to peanuts and I live in Lyon',
    origin: {
      source: { kind: 'url', uri: 'https://only-e1.example/page' },
      observedAt: T0,
      writtenBy: 't',
    },
    about: [{ name: 'Lyon', type: 'place' }, peanuts],
    relations: [{ subject: user, type: 'PREFERS_AGAINST', object: peanuts, reason: 'allergy' }],
  });
  const e2 = makeMemory(owner, { kind: 'episode', text: 'I drink tea every morning' });
  const e3 = makeMemory(owner, { kind: 'episode', text: 'I go running on Sundays' });
  const e4 = makeMemory(owner, { kind: 'episode', text: 'Company policy: be concise' });
  const f1 = makeMemory(owner, {
    derivedFrom: [e1.id, e2.id],
    relations: [{ subject: user, type: 'PREFERS', object: tea }],
  });
  const f2 = makeMemory(owner, { derivedFrom: [e1.id] });
  const f3 = makeMemory(owner, {
    derivedFrom: [e3.id],
    relations: [{ subject: user, type: 'PREFERS', object: tea }],
  });
  const s1 = makeMemory(owner, { kind: 'summary', derivedFrom: [f1.id, f2.id, e3.id] });
  const s2 = makeMemory(owner, { kind: 'summary', derivedFrom: [f2.id] });
  const r1 = makeMemory(owner, { kind: 'rule', derivedFrom: [s1.id, e4.id] });
  const all = { e1, e2, e3, e4, f1, f2, f3, s1, s2, r1 };
  await store.write(
    batchOf([e1, e2, e3, e4, f1, f2, f3, s1, { memory: s2, embedding: null }, r1], {
      sessionMessages: [
        {
          ownerId: owner,
          sessionId: 'chat',
          role: 'user',
          text: e1.text,
          at: T0,
          expiresAt: FAR,
          memoryId: e1.id,
          writer: { principal: 'key:test', role: 'user' },
        },
        {
          ownerId: owner,
          sessionId: 'chat',
          role: 'user',
          text: e2.text,
          at: T0,
          expiresAt: FAR,
          memoryId: e2.id,
          writer: { principal: 'key:test', role: 'user' },
        },
      ],
    }),
  );
  return all;
}

const ids = (ms: Memory[]) => ms.map((m) => m.id);

/** A cascade from one root with no audit event of the caller's. */
const forgetOne = (ownerId: string, rootId: string, reason: 'forget' | 'cap' = 'forget') =>
  store.deleteCascade({ ownerId, rootIds: [rootId], reason, at: NOW, audit: [] });

describe('deleteCascade', () => {
  it('deletes the inbound closure and everything hanging off it, and lists what to re-derive', async () => {
    const owner = newOwner();
    const { e1, e2, e3, e4, f1, f2, f3, s1, s2, r1 } = await buildDag(owner);
    const gone = [e1, f1, f2, s1, s2, r1];
    const kept = [e2, e3, e4, f3];

    const before = await store.findTraces(
      owner,
      ids(gone),
      gone.map((m) => m.contentHash),
    );
    const places = new Set(before.map((t) => t.where));
    for (const where of [
      'memories',
      'memory_vectors',
      'memory_fts_terms',
      'derived_from',
      'memory_about',
      'relation_assertions',
      'memory_sources',
      'session_messages',
    ]) {
      expect(places, where).toContain(where);
    }

    const receipt = await store.deleteCascade({
      ownerId: owner,
      rootIds: [e1.id],
      reason: 'forget',
      at: NOW,
      audit: [auditEvent('delete', owner, [e1.id])],
    });

    expect(new Set(receipt.deletedMemoryIds)).toEqual(new Set(ids(gone)));
    expect(receipt.deletedMemoryIds[0]).toBe(e1.id);
    expect(new Set(receipt.deletedContentHashes)).toEqual(new Set(gone.map((m) => m.contentHash)));
    expect(receipt).toMatchObject({
      ownerId: owner,
      reason: 'forget',
      requested: [e1.id],
      embeddingsDeleted: 5, // s2 had no embedding
      fullTextEntriesDeleted: 6,
      relationEdgesDeleted: 1, // PREFERS_AGAINST; PREFERS tea is still asserted by f3
      entitiesDeleted: 2, // Lyon, Peanuts
      sessionMessagesDeleted: 1,
      at: NOW,
    });
    const rederive = Object.fromEntries(receipt.rederive.map((r) => [r.id, r.survivingSources]));
    expect(rederive).toEqual({ [f1.id]: [e2.id], [s1.id]: [e3.id], [r1.id]: [e4.id] });

    expect(
      await store.findTraces(
        owner,
        ids(gone),
        gone.map((m) => m.contentHash),
      ),
    ).toEqual([]);
    expect(ids(await store.getByIds(owner, ids([...gone, ...kept])))).toEqual(ids(kept));
    expect(await store.derivedFrom(owner, [e3.id])).toEqual([{ source: e3.id, child: f3.id }]);
    expect(await store.findBySource(owner, { uri: 'https://only-e1.example/page' })).toEqual([]);
    expect(await store.relations(owner)).toEqual([
      {
        ownerId: owner,
        subject: user,
        type: 'PREFERS',
        object: tea,
        reasons: [],
        assertedBy: [f3.id],
      },
    ]);
    expect(await store.searchEntities(owner, ['peanuts', 'lyon'], { limit: 10, now: NOW })).toEqual(
      [],
    );
    expect(
      (await store.sessionMessages(owner, 'chat', { limit: 10, now: NOW })).map((m) => m.memoryId),
    ).toEqual([e2.id]);

    // The audit event carries ids, hashes and counts; never the content.
    const events = await store.listAudit({ ownerId: owner, limit: 100 });
    const last = events.at(-1)!;
    expect(last.type).toBe('delete');
    expect(new Set(last.memoryIds)).toEqual(new Set(ids(gone)));
    expect(new Set(last.contentHashes)).toEqual(new Set(gone.map((m) => m.contentHash)));
    expect(last.details).toMatchObject({
      note: 'test',
      cascade: { memoriesDeleted: 6, relationEdgesDeleted: 1 },
    });
    expect(JSON.stringify(events)).not.toContain('peanuts');
  });

  it('is owner-scoped: another owner’s roots are not found and nothing is deleted', async () => {
    const owner = newOwner();
    const { e1 } = await buildDag(owner);
    const stranger = newOwner();
    await expect(forgetOne(stranger, e1.id)).rejects.toMatchObject({
      name: 'KeepGraphError',
      code: 'not_found',
    });
    expect(await store.getById(owner, e1.id)).not.toBeNull();
    expect(await store.countMemories(owner)).toBe(10);
  });

  it('audits a cascade even when the caller sends no event', async () => {
    const owner = newOwner();
    const m = makeMemory(owner);
    await store.write(batchOf([m]));
    await forgetOne(owner, m.id, 'cap');
    const last = (await store.listAudit({ ownerId: owner, limit: 10 })).at(-1)!;
    expect(last).toMatchObject({
      type: 'evict',
      reason: 'cap',
      memoryIds: [m.id],
      contentHashes: [m.contentHash],
    });
  });

  it('clears pointers to a deleted version but keeps the older one superseded', async () => {
    const owner = newOwner();
    const old = makeMemory(owner, { key: 'city', text: 'lives in Paris' });
    await store.write(batchOf([old]));
    const newer = makeMemory(owner, { key: 'city', text: 'lives in Berlin', supersedes: old.id });
    await store.write(
      batchOf([newer], { supersede: [{ ownerId: owner, id: old.id, by: newer.id, at: T0 }] }),
    );
    await forgetOne(owner, newer.id);
    expect(await store.findTraces(owner, [newer.id], [newer.contentHash])).toEqual([]);
    expect(await store.getById(owner, old.id)).toMatchObject({ supersededBy: null, validTo: T0 });
    expect(await store.searchText(owner, 'Paris', { limit: 5, now: NOW })).toEqual([]);
  });

  it('leaves no copy of deleted text in the database file', async () => {
    const owner = newOwner();
    const secret = 'zorblaxquimfen';
    const m = makeMemory(owner, {
      text: `the vault phrase is ${secret} remember it`,
      about: [{ name: `${secret}vault`, type: 'thing' }],
    });
    const keep = makeMemory(owner, { text: 'an unrelated memory about gardening' });
    await store.write(
      batchOf([m, keep], {
        sessionMessages: [
          {
            ownerId: owner,
            sessionId: 'c',
            role: 'user',
            text: m.text,
            at: T0,
            expiresAt: FAR,
            memoryId: m.id,
            writer: { principal: 'key:test', role: 'user' },
          },
        ],
      }),
    );
    store.checkpoint();
    expect(readFileSync(path).includes(secret)).toBe(true);

    await forgetOne(owner, m.id);
    expect((await rawContent(store)).includes(secret)).toBe(false);
    await store.close();
    const bytes = readFileSync(path);
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes(secret.slice(0, 10))).toBe(false);
    expect(bytes.includes('gardening')).toBe(true);
  });

  it('leaves no copy of a deleted vector in the database file or the WAL', async () => {
    const owner = newOwner();
    const vectorOf = (seed: number) =>
      Float32Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7.31 + i * 1.7));
    const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    const gone = vectorOf(1);
    const kept = vectorOf(2);
    const m = makeMemory(owner, { text: 'a memory whose vector must go' });
    const keep = makeMemory(owner, { text: 'a memory whose vector stays' });
    await store.write(
      batchOf([
        { memory: m, embedding: gone },
        { memory: keep, embedding: kept },
      ]),
    );
    expect(rawFilesAsIs(store).includes(bytes(gone))).toBe(true);
    store.checkpoint();
    expect(readFileSync(path).includes(bytes(gone))).toBe(true);

    await forgetOne(owner, m.id);
    const after = rawFilesAsIs(store);
    expect(after.includes(bytes(gone))).toBe(false);
    // Half of it would do to recognise it: none of it is left.
    expect(after.includes(bytes(gone).subarray(0, (DIM * 4) / 2))).toBe(false);
    expect(after.includes(bytes(kept))).toBe(true);
    expect(
      (await store.searchVector(owner, gone, { limit: 5, now: NOW })).map((h) => h.id),
    ).toEqual([keep.id]);
  });

  it('leaves no copy of deleted text in the WAL either, without waiting for a checkpoint', async () => {
    const owner = newOwner();
    const secret = 'quendrapilvox';
    const m = makeMemory(owner, { text: `the alarm word is ${secret} at the cabin` });
    const keep = makeMemory(owner, { text: 'an unrelated memory about the cabin roof' });
    await store.write(batchOf([m, keep]));
    // Written and read: the text is in the WAL (no checkpoint has run).
    expect(await store.searchText(owner, secret, { limit: 5, now: NOW })).toHaveLength(1);
    expect(rawFilesAsIs(store).includes(secret)).toBe(true);
    await forgetOne(owner, m.id);
    const bytes = rawFilesAsIs(store);
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes('cabin roof')).toBe(true);
  });
});
