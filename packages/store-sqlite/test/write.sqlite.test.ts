// write(): round trip, copies out, atomicity (all of a batch or none of it,
// audit included), owner scoping of edges and supersession marks.
import { describe, expect, it } from 'vitest';
import type { SqliteMemoryStore } from '../src/index.ts';
import { FAR, NOW, T0, batchOf, makeMemory, newOwner, storeAround } from './helpers.ts';

let store: SqliteMemoryStore;
storeAround((opened) => ({ store } = opened));

describe('write', () => {
  it('stores every field and hands back fresh copies', async () => {
    const owner = newOwner();
    const person = { name: 'User', type: 'person' };
    const peanuts = { name: 'Peanuts', type: 'food' };
    const m = makeMemory(owner, {
      kind: 'preference',
      key: 'diet',
      tags: ['food', 'health'],
      confidence: 0.8,
      origin: {
        sessionId: 's9',
        turn: '3',
        tool: { name: 'search', callId: 'c1' },
        source: { kind: 'url', uri: 'https://example.com/a' },
        observedAt: T0,
        writtenBy: 'agent-1',
      },
      about: [peanuts],
      relations: [{ subject: person, type: 'PREFERS_AGAINST', object: peanuts, reason: 'allergy' }],
      redactions: ['email'],
      conflict: true,
    });
    await store.write(batchOf([m]));

    const got = await store.getById(owner, m.id);
    expect(got).toEqual(m);
    got!.text = 'mutated';
    got!.tags.push('x');
    expect(await store.getById(owner, m.id)).toEqual(m);
    expect(await store.getByIds(owner, [m.id, 'missing'])).toEqual([m]);
    expect(await store.getByKey(owner, 'diet')).toEqual([m]);
    expect(await store.getById(newOwner(), m.id)).toBeNull();

    expect(await store.findBySource(owner, { uri: 'https://example.com/a' })).toEqual([m.id]);
    expect(await store.findBySource(owner, { tool: 'search' })).toEqual([m.id]);
    expect(await store.findBySource(newOwner(), { tool: 'search' })).toEqual([]);

    const rel = await store.relations(owner);
    expect(rel).toEqual([
      {
        ownerId: owner,
        subject: person,
        type: 'PREFERS_AGAINST',
        object: peanuts,
        reasons: ['allergy'],
        assertedBy: [m.id],
      },
    ]);
    expect(await store.listOwners()).toContain(owner);
    expect(await store.countMemories(owner)).toBe(1);
  });

  it('is atomic: a batch with a duplicate id leaves nothing, not even its audit event', async () => {
    const owner = newOwner();
    const first = makeMemory(owner);
    await store.write(batchOf([first]));
    const auditBefore = await store.listAudit({ limit: 1000 });

    const fresh = makeMemory(owner, { about: [{ name: 'Zed', type: 'thing' }] });
    const dup = makeMemory(owner, { id: first.id });
    await expect(
      store.write(
        batchOf([fresh, dup], {
          sessionMessages: [
            {
              ownerId: owner,
              sessionId: 's1',
              role: 'user',
              text: 'hello there',
              at: T0,
              expiresAt: FAR,
              memoryId: null,
              writer: { principal: 'key:test', role: 'user' },
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'KeepGraphError', code: 'conflict' });

    expect(await store.getById(owner, fresh.id)).toBeNull();
    expect(await store.countMemories(owner)).toBe(1);
    expect(await store.listAudit({ limit: 1000 })).toEqual(auditBefore);
    expect(await store.sessionMessages(owner, 's1', { limit: 10, now: NOW })).toEqual([]);
    expect(await store.findTraces(owner, [fresh.id], [fresh.contentHash])).toEqual([]);
    expect(await store.searchEntities(owner, ['zed'], { limit: 10, now: NOW })).toEqual([]);
  });

  it('refuses DERIVED_FROM edges to another owner’s memory, and to unknown ids', async () => {
    const a = newOwner();
    const b = newOwner();
    const source = makeMemory(a);
    await store.write(batchOf([source]));
    const thief = makeMemory(b, { kind: 'summary', derivedFrom: [source.id] });
    await expect(store.write(batchOf([thief]))).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await store.getById(b, thief.id)).toBeNull();
    expect(await store.derivedFrom(a, [source.id])).toEqual([]);
  });

  it('accepts a summary and its sources in one batch', async () => {
    const owner = newOwner();
    const s1 = makeMemory(owner);
    const s2 = makeMemory(owner);
    const sum = makeMemory(owner, { kind: 'summary', derivedFrom: [s1.id, s2.id] });
    await store.write(batchOf([sum, s1, s2]));
    expect(await store.derivedFrom(owner, [s1.id])).toEqual([{ source: s1.id, child: sum.id }]);
    expect((await store.getById(owner, sum.id))?.derivedFrom).toEqual([s1.id, s2.id]);
  });

  it('applies supersession marks only within the owner', async () => {
    const a = newOwner();
    const b = newOwner();
    const old = makeMemory(a, { key: 'city', text: 'lives in Paris' });
    await store.write(batchOf([old]));
    const newer = makeMemory(a, {
      key: 'city',
      text: 'lives in Berlin',
      supersedes: old.id,
      createdAt: NOW,
      validFrom: NOW,
    });
    await store.write(
      batchOf([newer], { supersede: [{ ownerId: a, id: old.id, by: newer.id, at: NOW }] }),
    );
    const versions = await store.getByKey(a, 'city');
    expect(versions.map((m) => m.id)).toEqual([newer.id, old.id]);
    expect(versions[1]).toMatchObject({ validTo: NOW, supersededBy: newer.id });

    // A mark naming another owner changes nothing.
    const other = makeMemory(b);
    await store.write(
      batchOf([other], { supersede: [{ ownerId: b, id: newer.id, by: other.id, at: NOW }] }),
    );
    expect((await store.getById(a, newer.id))?.supersededBy).toBeNull();
  });

  it('requires an owner on every write', async () => {
    await expect(store.write(batchOf([makeMemory('  ')]))).rejects.toMatchObject({
      code: 'owner_required',
    });
  });

  it('rejects an embedding of the wrong dimension', async () => {
    const m = makeMemory(newOwner());
    await expect(
      store.write(batchOf([{ memory: m, embedding: new Float32Array(3) }])),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
