// The port's ordering contracts, on every store (they were tested on SQLite
// only): the session buffer's newest-N in reading order and its trim, the
// eviction order of lowestValue, dueForExpiry's candidates, counts, and the
// read log a recall writes. Stores are shared between tests, so every
// assertion keeps to the test's own random owners.
import { expect, it } from 'vitest';
import { FIXTURE_FAR, FIXTURE_T0, auditEventFixture, memoryFixture } from '@keepgraph/core/testing';
import { batchOf, conformanceSuite, fact, putMemories } from '../harness.ts';

const NOW = '2026-06-01T00:00:00.000Z';

export const storeOrderingsSuite = conformanceSuite('store orderings', (f) => {
  it('getByIds answers in the order asked, each memory once, skipping what it does not hold', async () => {
    // Recall reads candidates and their derived neighbours in two calls and
    // joins the answers; the join is one call's answer only if both keep
    // the order asked.
    const owner = f.owner();
    const ms = [1, 2, 3, 4, 5].map((i) => memoryFixture(owner, { text: `ordered ${i}` }));
    await putMemories(f, ms);
    const [a, b, c, d, e] = ms.map((m) => m.id) as [string, string, string, string, string];
    const asked = [d, a, 'mem-absent', e, a, c, b];
    expect((await f.store.getByIds(owner, asked)).map((m) => m.id)).toEqual([d, a, e, c, b]);
    expect((await f.store.getByIds(f.owner(), [a, b])).map((m) => m.id)).toEqual([]);
  });

  it('the session buffer: newest N in reading order, expired ones hidden, trim keeps the newest', async () => {
    const owner = f.owner();
    const msgs = [1, 2, 3, 4].map((i) => ({
      ownerId: owner,
      sessionId: 'chat',
      role: 'user' as const,
      text: `message ${i}`,
      at: `2026-01-01T00:00:0${i}.000Z`,
      expiresAt: i === 1 ? FIXTURE_T0 : FIXTURE_FAR,
      memoryId: null,
      writer: { principal: 'key:test', role: 'user' as const },
    }));
    await f.store.write(
      batchOf({ sessionMessages: msgs, audit: [auditEventFixture('session_append', owner)] }),
    );
    const texts = async (limit: number) =>
      (await f.store.sessionMessages(owner, 'chat', { limit, now: NOW })).map((m) => m.text);
    expect(await texts(2)).toEqual(['message 3', 'message 4']);
    expect(await texts(10)).toEqual(['message 2', 'message 3', 'message 4']);
    const seqs = (await f.store.sessionMessages(owner, 'chat', { limit: 10, now: NOW })).map(
      (m) => m.seq!,
    );
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(3);
    expect(await f.store.sessionMessages(f.owner(), 'chat', { limit: 10, now: NOW })).toEqual([]);
    expect(await f.store.trimSession(owner, 'chat', 1)).toBe(3);
    expect(await texts(10)).toEqual(['message 4']);
  });

  it('eviction order (lowest confidence, then lower authority, then oldest) and expiry candidates', async () => {
    const owner = f.owner();
    const at = (iso: string) => ({ createdAt: iso, validFrom: iso });
    const low = memoryFixture(owner, { confidence: 0.2 });
    const thirdParty = memoryFixture(owner, { confidence: 0.5, authority: 'third_party' });
    const userOld = memoryFixture(owner, {
      confidence: 0.5,
      authority: 'user',
      ...at(FIXTURE_T0),
    });
    const userNew = memoryFixture(owner, {
      confidence: 0.5,
      authority: 'user',
      ...at('2026-03-01T00:00:00.000Z'),
    });
    const expired = memoryFixture(owner, {
      confidence: 0.9,
      expiresAt: '2026-01-01T12:00:00+02:00',
    });
    await putMemories(f, [userNew, expired, userOld, thirdParty, low]);
    expect(await f.store.lowestValue(owner, 4)).toEqual([
      low.id,
      thirdParty.id,
      userOld.id,
      userNew.id,
    ]);
    const due = await f.store.dueForExpiry(NOW, 100_000);
    expect(due.filter((d) => d.ownerId === owner)).toEqual([
      { ownerId: owner, id: expired.id, expiresAt: expired.expiresAt },
    ]);
    // Oldest first across owners.
    const times = due.map((d) => Date.parse(d.expiresAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const counts = await f.store.counts();
    expect(counts.memories).toBeGreaterThanOrEqual(5);
    expect(counts.attributed).toBeLessThanOrEqual(counts.memories);
  });

  it('a recall that served memories writes one read-log entry, named in its audit event', async () => {
    const owner = f.owner();
    const reader = { role: 'user' as const, owners: 'all' as const, principal: 'reader' };
    await f.engine.remember(
      reader,
      owner,
      fact('The allotment plot number is seventeen, by the east gate'),
    );
    const first = await f.engine.recall(
      { ...reader, requestId: `req-1-${owner}` },
      owner,
      'allotment plot',
      { sessionId: 'garden' },
    );
    f.clock.advance(1000); // newest first is by time; entries of one instant have no set order
    const second = await f.engine.recall(
      { ...reader, requestId: `req-2-${owner}` },
      owner,
      'east gate',
    );
    expect(first.results.length).toBeGreaterThan(0);
    const log = await f.store.readLog(owner, { limit: 10 });
    expect(log.map((e) => e.requestId)).toEqual([`req-2-${owner}`, `req-1-${owner}`]);
    expect(log[1]).toEqual({
      ownerId: owner,
      requestId: `req-1-${owner}`,
      principal: 'reader',
      sessionId: f.engine.deps.keyedHash('garden'),
      memoryIds: first.results.map((h) => h.memory.id),
      at: expect.any(String),
    });
    expect(log[0]!.memoryIds).toEqual(second.results.map((h) => h.memory.id));
    expect(await f.store.readLog(owner, { limit: 1 })).toHaveLength(1);
    expect(await f.store.readLog(f.owner(), { limit: 10 })).toEqual([]);
  });
});
