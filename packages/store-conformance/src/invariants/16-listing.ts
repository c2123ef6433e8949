// Listing an owner's memories with filters, page by page: every filter, the
// cursor, superseded versions for operators and analysts only, bad input
// refused with nothing read, and never another owner's memory.
import { expect, it } from 'vitest';
import type { Caller, Memory, MemoryFilter } from '@keepgraph/core';
import { memoryFixture } from '@keepgraph/core/testing';
import {
  agent,
  conformanceSuite,
  derived,
  expectCode,
  instantBetweenWrites,
  kv,
  operator,
  pageSays,
  putMemories,
  tool,
  toolSays,
  user,
  userEpisode,
} from '../harness.ts';

const analyst: Caller = { role: 'analyst', owners: 'all', principal: 'analyst:test' };

export const listingSuite = conformanceSuite('listing memories with filters', (f, opts) => {
  it('applies each filter, pages with a cursor, and lists no other owner', async () => {
    const o = f.owner();
    const other = f.owner();
    await userEpisode(f, other, 'Another owner keeps goats on a farm');
    const ep1 = await userEpisode(f, o, 'The user plans a trip to Lisbon in May', {
      tags: ['travel'],
    });
    const mark = instantBetweenWrites(f);
    const ep2 = await userEpisode(f, o, 'The user wants a hotel near the river');
    const fromTool = await f.engine.remember(
      tool,
      o,
      toolSays('Flight TP1234 departs at 09:40 on Friday', { name: 'flights', callId: 'c1' }),
    );
    // A page the user vouches for: the user's authority, the page's origin.
    const fromPage = await f.engine.remember(
      user,
      o,
      pageSays('The hotel has a rooftop pool open until ten', 'https://hotel.example/pool', {
        authority: 'user',
        ttlSeconds: 2 * 86_400,
      }),
    );
    const rule = await f.engine.remember(
      agent,
      o,
      derived('The user likes riverside places to stay', [ep2.memory.id]),
    );
    const v1 = await f.engine.putByKey(user, o, 'seat', kv('Seat preference: window', 'S9'));
    const v2 = await f.engine.putByKey(user, o, 'seat', kv('Seat preference: aisle', 'S9'));
    const low = await f.engine.putByKey(tool, o, 'seat', {
      text: 'Seat preference: middle',
      origin: { tool: { name: 'crm' } },
    });
    expect(low.memory.conflict).toBe(true);

    const ids = async (filter: MemoryFilter, caller: Caller = user) =>
      (await f.engine.listMemories(caller, o, { filter, limit: 500 })).memories
        .map((m) => m.id)
        .sort();
    const sorted = (...ms: { memory: Memory }[]) => ms.map((m) => m.memory.id).sort();

    const all = await ids({});
    expect(all).toEqual(sorted(ep1, ep2, fromTool, fromPage, rule, v2, low));
    expect(all).not.toContain(v1.memory.id);
    expect(await ids({ kinds: ['episode'] })).toEqual(sorted(ep1, ep2));
    expect(await ids({ authorities: ['tool'] })).toEqual(sorted(fromTool, low));
    expect(await ids({ tag: 'travel' })).toEqual(sorted(ep1));
    expect(await ids({ sessionId: 'S9' })).toEqual(sorted(v2));
    expect(await ids({ tool: 'flights' })).toEqual(sorted(fromTool));
    expect(await ids({ sourceUri: 'https://hotel.example/pool' })).toEqual(sorted(fromPage));
    expect(await ids({ createdBefore: mark })).toEqual(sorted(ep1));
    expect(await ids({ createdAfter: mark, kinds: ['episode'] })).toEqual(sorted(ep2));
    expect(await ids({ observedBefore: mark })).toEqual(sorted(ep1));
    const soon = new Date(f.clock.now().getTime() + 3 * 86_400_000).toISOString();
    expect(await ids({ expiresBefore: soon })).toEqual(sorted(fromPage));
    expect(await ids({ conflict: true })).toEqual(sorted(low));
    expect(await ids({ derived: true })).toEqual(sorted(rule));
    expect((await ids({ derived: false })).length).toBe(6);
    // Superseded versions: for operators and analysts only.
    expect(await ids({ includeSuperseded: true, kinds: ['kv'] }, analyst)).toEqual(
      sorted(v1, v2, low),
    );
    expect(await ids({ includeSuperseded: true, kinds: ['kv'] }, operator)).toEqual(
      sorted(v1, v2, low),
    );
    await expectCode(
      f.engine.listMemories(user, o, { filter: { includeSuperseded: true } }),
      'forbidden_role',
    );

    // Pages of 2 through the cursor: every memory once, in id order.
    const paged: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await f.engine.listMemories(user, o, {
        limit: 2,
        ...(after ? { after } : {}),
      });
      paged.push(...page.memories.map((m) => m.id));
      if (page.next === null) break;
      after = page.next;
    }
    expect(paged).toEqual([...all].sort());
  });

  it("lists the owner's sessions with their unexpired messages and memories, latest first", async () => {
    const o = f.owner();
    await userEpisode(f, f.owner(), 'Another owner talks about boats', {
      origin: { sessionId: 'S-other' },
    });
    await f.engine.sessionAppend(user, o, 'S-a', {
      messages: [{ role: 'user', text: 'we start planning the garden' }],
    });
    f.clock.advance(1000);
    await userEpisode(f, o, 'The user wants tomatoes this year', { origin: { sessionId: 'S-a' } });
    f.clock.advance(1000);
    await f.engine.sessionAppend(user, o, 'S-b', {
      messages: [
        { role: 'user', text: 'the bike needs new brakes' },
        { role: 'assistant', text: 'noted, the brakes' },
      ],
    });
    const { sessions } = await f.engine.listSessions(analyst, o);
    expect(sessions.map((s) => [s.sessionId, s.messages, s.memories])).toEqual([
      ['S-b', 2, 0],
      ['S-a', 1, 1],
    ]);
    expect(sessions[1]!.firstAt < sessions[1]!.lastAt).toBe(true);
    expect((await f.engine.listSessions(user, o, { limit: 1 })).sessions).toHaveLength(1);
    await f.engine.deleteSession(user, o, 'S-b');
    expect((await f.engine.listSessions(user, o)).sessions.map((s) => s.sessionId)).toEqual([
      'S-a',
    ]);
    expect((await f.engine.listSessions(user, f.owner())).sessions).toEqual([]);
    await expectCode(f.engine.listSessions(user, o, { limit: 0 } as never), 'invalid_input');
  });

  const listed = opts.listingMemories ?? 10_000;
  it(`pages through ${listed.toLocaleString('en')} memories 100 at a time, each exactly once, while writes go on`, async () => {
    const o = f.owner();
    const at = new Date(f.clock.now().getTime() - 60_000).toISOString();
    const seeded: string[] = [];
    // Seeded through the store (10,000 real embeddings would take minutes);
    // the writes during the paging go through the engine, gate and embedder.
    for (let b = 0; b < Math.ceil(listed / 1000); b++) {
      const ms = Array.from({ length: 1000 }, () =>
        memoryFixture(o, { createdAt: at, validFrom: at }),
      );
      await putMemories(f, ms, () => null);
      seeded.push(...ms.map((m) => m.id));
    }
    let paging = true;
    const writer = (async () => {
      const written: string[] = [];
      for (let i = 0; paging; i++)
        written.push((await userEpisode(f, o, `Note number ${i} written while paging`)).memory.id);
      return written;
    })();
    const seen = new Map<string, number>();
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await f.engine.listMemories(user, o, { limit: 100, ...(after && { after }) });
      for (const m of page.memories) seen.set(m.id, (seen.get(m.id) ?? 0) + 1);
      after = page.next ?? undefined;
      pages++;
    } while (after);
    paging = false;
    const written = await writer;
    expect(written.length).toBeGreaterThan(0);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(seeded.filter((id) => !seen.has(id))).toEqual([]);
    // What was written meanwhile is listed at most once, and only as this owner's.
    const ours = new Set([...seeded, ...written]);
    expect([...seen.keys()].every((id) => ours.has(id))).toBe(true);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(listed / 100));
  }, 600_000);

  it("reads a session's messages, and forgets a session with what it produced after a dry run", async () => {
    const o = f.owner();
    await f.engine.sessionAppend(user, o, 'S-trip', {
      messages: [
        { role: 'user', text: 'We are planning a week in Kyoto in April' },
        { role: 'assistant', text: 'Kyoto in April is cherry blossom season' },
      ],
    });
    const ep = await f.engine.remember(user, o, {
      kind: 'episode',
      text: 'The user plans a week in Kyoto in April',
      origin: { sessionId: 'S-trip', turn: '1' },
    });
    const rule = await f.engine.remember(
      agent,
      o,
      derived('The user likes travelling in spring', [ep.memory.id]),
    );
    const elsewhere = await f.engine.remember(user, o, {
      kind: 'fact',
      text: 'The user works from Lisbon',
      origin: { sessionId: 'S-other' },
    });
    const read = await f.engine.readSession(analyst, o, 'S-trip');
    expect(read.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'We are planning a week in Kyoto in April'],
      ['assistant', 'Kyoto in April is cherry blossom season'],
    ]);
    expect((await f.engine.readSession(user, o, 'S-trip', { limit: 1 })).messages).toHaveLength(1);
    await expectCode(f.engine.readSession(user, o, 'S-none'), 'not_found');
    await expectCode(
      f.engine.readSession(user, o, 'S-trip', { limit: 0 } as never),
      'invalid_input',
    );

    const dry = await f.engine.forgetSession(user, o, 'S-trip', { dryRun: true });
    expect(dry).toMatchObject({
      dryRun: true,
      observed: [ep.memory.id],
      sessionMessages: 2,
      receipt: null,
    });
    expect(dry.memoryIds).toEqual([ep.memory.id, rule.memory.id].sort());
    expect((await f.store.getByIds(o, dry.memoryIds)).length).toBe(2);
    expect((await f.engine.readSession(user, o, 'S-trip')).messages).toHaveLength(2);
    await expectCode(
      f.engine.forgetSession(user, o, 'S-trip', { dryrun: true } as never),
      'invalid_input',
    );
    await expectCode(f.engine.forgetSession(analyst, o, 'S-trip'), 'forbidden_role');
    expect((await f.store.getByIds(o, dry.memoryIds)).length).toBe(2);

    const done = await f.engine.forgetSession(user, o, 'S-trip');
    expect(done).toMatchObject({ dryRun: false, observed: [ep.memory.id], sessionMessages: 2 });
    expect([...done.memoryIds].sort()).toEqual(dry.memoryIds);
    expect(done.receipt?.reason).toBe('forget_session');
    const check = await f.engine.verifyForgotten(user, o, {
      ids: done.memoryIds,
      contentHashes: done.receipt!.deletedContentHashes,
    });
    expect(check.forgotten).toBe(true);
    await expectCode(f.engine.readSession(user, o, 'S-trip'), 'not_found');
    await expectCode(f.engine.forgetSession(user, o, 'S-trip'), 'not_found');
    expect((await f.engine.get(user, o, elsewhere.memory.id)).id).toBe(elsewhere.memory.id);
  });

  it('applies the same filters to recall, and refuses bad ones', async () => {
    const o = f.owner();
    const trip = await userEpisode(f, o, 'The user booked a train to Porto for the conference', {
      tags: ['travel'],
    });
    const mark = instantBetweenWrites(f);
    const train = await f.engine.remember(
      tool,
      o,
      toolSays('The train to Porto leaves at 08:15 from platform 4', {
        name: 'rail',
        callId: 'r1',
      }),
    );
    const page = await f.engine.remember(
      user,
      o,
      pageSays(
        'The Porto conference venue is next to the train station',
        'https://conf.example/venue',
        {
          authority: 'user',
        },
      ),
    );
    const q = 'train to Porto';
    const hits = async (filter: Record<string, unknown>) =>
      (await f.engine.recall(user, o, q, { topK: 10, filter })).results
        .map((r) => r.memory.id)
        .sort();
    expect(await hits({})).toEqual([trip, train, page].map((r) => r.memory.id).sort());
    expect(await hits({ tag: 'travel' })).toEqual([trip.memory.id]);
    expect(await hits({ tool: 'rail' })).toEqual([train.memory.id]);
    expect(await hits({ sourceUri: 'https://conf.example/venue' })).toEqual([page.memory.id]);
    expect(await hits({ sessionId: trip.memory.origin.sessionId })).toEqual([trip.memory.id]);
    expect(await hits({ authorities: ['tool'] })).toEqual([train.memory.id]);
    expect(await hits({ kinds: ['fact'], createdAfter: mark })).toEqual(
      [train, page].map((r) => r.memory.id).sort(),
    );
    expect(await hits({ createdBefore: mark })).toEqual([trip.memory.id]);
    expect(await hits({ derived: true })).toEqual([]);
    for (const bad of [
      { includeSuperseded: true },
      { kinds: ['gossip'] },
      { colour: 'blue' },
      { createdAfter: 'soon' },
    ])
      await expectCode(f.engine.recall(user, o, q, { filter: bad } as never), 'invalid_input');
  });

  it('refuses bad filters and pages with invalid_input, and reads nothing for them', async () => {
    const o = f.owner();
    for (const bad of [
      { filter: { kinds: ['gossip'] } },
      { filter: { kinds: [] } },
      { filter: { createdAfter: 'yesterday' } },
      { filter: { colour: 'blue' } },
      { limit: 0 },
      { limit: 501 },
      { after: '  ' },
    ])
      await expectCode(f.engine.listMemories(user, o, bad as never), 'invalid_input');
  });
});
