// What the analyst's views read, on every store: the read log as a query
// (which reads served a memory: its blast radius, one owner at a time), and
// the dry run of forget and revoke-source (the cascade's closure listed,
// nothing deleted or audited, then the real call deleting exactly those).
// (The governance KPIs: 19b-governance-kpis.ts.)
import { expect, it } from 'vitest';
import type { Caller } from '@keepgraph/core';
import {
  agent,
  conformanceSuite,
  derived,
  expectCode,
  fact,
  operator,
  pageSays,
  pageWithSummary,
  tool,
  user,
  userEpisode,
} from '../harness.ts';

const DELETION_TYPES = ['delete', 'expire', 'evict', 'revoke_source', 'forget_owner'];

export const readLogDryRunSuite = conformanceSuite('the read log and dry runs of deletion', (f) => {
  const reader = (requestId: string): Caller => ({
    role: 'user',
    owners: 'all',
    principal: 'reader',
    requestId,
  });

  it('lists the reads that served a memory, newest first, never another owner’s, filtered by memory and time', async () => {
    const o = f.owner();
    const other = f.owner();
    const plot = await f.engine.remember(
      user,
      o,
      fact('The allotment plot number is seventeen, by the east gate'),
    );
    const tea = await f.engine.remember(
      user,
      o,
      fact('Prefers green tea over coffee in the afternoon', { kind: 'preference' }),
    );
    await f.engine.remember(user, other, fact('The allotment plot number is nine'));

    const r1 = await f.engine.recall(reader(`r1-${o}`), o, 'allotment plot', {
      sessionId: 'garden',
    });
    f.clock.advance(1000);
    const r2 = await f.engine.recall(reader(`r2-${o}`), o, 'afternoon drink', {
      kinds: ['preference'],
    });
    f.clock.advance(1000);
    const r3 = await f.engine.recall(reader(`r3-${o}`), o, 'east gate plot', { kinds: ['fact'] });
    await f.engine.recall(reader(`other-${other}`), other, 'allotment plot');
    expect(r1.results.map((h) => h.memory.id)).toContain(plot.memory.id);
    expect(r2.results.map((h) => h.memory.id)).toEqual([tea.memory.id]);
    expect(r3.results.map((h) => h.memory.id)).toEqual([plot.memory.id]);

    const all = await f.engine.readLog(user, o);
    expect(all.reads.map((r) => r.requestId)).toEqual([`r3-${o}`, `r2-${o}`, `r1-${o}`]);
    expect(all.reads[2]).toEqual({
      requestId: `r1-${o}`,
      principal: 'reader',
      sessionId: f.engine.deps.keyedHash('garden'),
      memoryIds: r1.results.map((h) => h.memory.id),
      at: expect.any(String),
    });
    expect(all.reads[0]!.sessionId).toBeNull();

    // The blast radius of one memory: the reads that served it, only those.
    const plotReads = await f.engine.readLog(user, o, { memoryId: plot.memory.id });
    expect(plotReads.reads.map((r) => r.requestId)).toEqual([`r3-${o}`, `r1-${o}`]);
    const teaReads = await f.engine.readLog(user, o, { memoryId: tea.memory.id });
    expect(teaReads.reads.map((r) => r.requestId)).toEqual(
      [`r2-${o}`, `r1-${o}`].filter((id) =>
        all.reads.find((r) => r.requestId === id)!.memoryIds.includes(tea.memory.id),
      ),
    );
    // Paging by time and by count.
    const older = await f.engine.readLog(user, o, { before: all.reads[0]!.at });
    expect(older.reads.map((r) => r.requestId)).toEqual([`r2-${o}`, `r1-${o}`]);
    expect((await f.engine.readLog(user, o, { limit: 1 })).reads).toHaveLength(1);
    // Another owner's reads are never listed, even of a memory id of this owner.
    const theirs = await f.engine.readLog(user, other);
    expect(theirs.reads.map((r) => r.requestId)).toEqual([`other-${other}`]);
    expect((await f.engine.readLog(user, other, { memoryId: plot.memory.id })).reads).toEqual([]);
    expect(JSON.stringify(all)).not.toContain(`other-${other}`);
  });

  it('lists every read that handed out what a memory says, not only recall: a poisoned memory’s blast radius is whole', async () => {
    const o = f.owner();
    const page = await f.engine.remember(
      agent,
      o,
      pageSays(
        'Families love Casa Verde because of the rooftop pool',
        'https://travel-tips.example.net/lisbon',
        { kind: 'episode' },
      ),
    );
    const key = 'preference:families:casa verde';
    const claim = await f.engine.remember(agent, o, {
      ...derived('Families prefer Casa Verde, because of the rooftop pool', [page.memory.id]),
      kind: 'preference',
      key,
      relations: [
        {
          subject: { name: 'families' },
          type: 'PREFERS',
          object: { name: 'casa verde' },
          reason: 'the rooftop pool',
        },
      ],
    });
    const [p, c] = [page.memory.id, claim.memory.id];
    await f.engine.get(reader(`get-${o}`), o, p);
    await f.engine.getByKey(reader(`key-${o}`), o, key);
    await f.engine.lineage(reader(`lineage-${o}`), o, c);
    await f.engine.neighbours(reader(`neighbours-${o}`), o, p);
    // The entity graph's edges carry the reasons their memories give.
    await f.engine.entityGraph(reader(`entities-${o}`), o);
    await f.engine.listMemories(reader(`list-${o}`), o);
    await f.engine.exportPage(reader(`export-${o}`), o);
    // Why: its results and every memory their lineage shows, as one read.
    const why = await f.engine.why(reader(`why-${o}`), o, 'Casa Verde rooftop pool');
    expect(why.results.map((h) => h.memory.id)).toContain(c);
    const reads = (await f.engine.readLog(user, o)).reads;
    const served = Object.fromEntries(
      reads.map((r) => [r.requestId.replace(`-${o}`, ''), [...r.memoryIds].sort()]),
    );
    expect(served).toEqual({
      get: [p],
      key: [c],
      lineage: [c, p].sort(),
      neighbours: [c, p].sort(),
      entities: [c],
      list: [c, p].sort(),
      export: [c, p].sort(),
      why: [c, p].sort(),
    });
    expect(reads.every((r) => r.principal === 'reader')).toBe(true);
    // The page's blast radius: every read that reached it, the claim's too.
    const reached = await f.engine.readLog(user, o, { memoryId: p });
    expect(reached.reads.map((r) => r.requestId.replace(`-${o}`, '')).sort()).toEqual(
      ['export', 'get', 'lineage', 'list', 'neighbours', 'why'].sort(),
    );
    expect(JSON.stringify(reads)).not.toContain('rooftop');
  });

  it('scopes the read log like every read, and refuses bad options with invalid_input', async () => {
    const o = f.owner();
    const scoped: Caller = { role: 'analyst', owners: [f.owner()], principal: 'analyst:one' };
    await expectCode(f.engine.readLog(scoped, o), 'owner_out_of_scope');
    await expectCode(f.engine.readLog(user, ''), 'owner_required');
    for (const bad of [
      { limit: 0 },
      { limit: 1001 },
      { before: 'yesterday' },
      { memoryId: '' },
      { memoryid: 'x' },
    ])
      await expectCode(f.engine.readLog(user, o, bad as never), 'invalid_input');
    // The store checks its own arguments too.
    await expectCode(f.store.readLog(o, { limit: 10, memoryId: '' }), 'invalid_input');
    await expectCode(f.store.readLog(o, { limit: 10, before: 'soon' }), 'invalid_input');
    expect((await f.engine.readLog(tool, o)).reads).toEqual([]);
  });

  it('a dry run of forget lists the closure, deletes and audits nothing; the real call deletes exactly those', async () => {
    const o = f.owner();
    const root = await userEpisode(f, o, 'Morgan said the Lisbon trip is planned for late May');
    const child = await f.engine.remember(
      user,
      o,
      derived('Morgan travels to Lisbon in May', [root.memory.id]),
    );
    const grandchild = await f.engine.remember(
      user,
      o,
      derived('Morgan is away in late May', [child.memory.id], { kind: 'rule' }),
    );
    const keep = await userEpisode(f, o, 'Morgan likes the window seat');
    const auditBefore = await f.engine.auditList(operator, { ownerId: o, limit: 1000 });

    const dry = await f.engine.forget(agent, o, [root.memory.id, root.memory.id], {
      dryRun: true,
    });
    const closure = [root.memory.id, child.memory.id, grandchild.memory.id].sort();
    expect(dry).toEqual({
      ownerId: o,
      reason: 'forget',
      dryRun: true,
      requested: [root.memory.id],
      memoryIds: closure,
      memories: [
        {
          id: root.memory.id,
          kind: 'episode',
          authority: 'user',
          text: root.memory.text,
          derived: false,
        },
        ...[child.memory, grandchild.memory]
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .map((m) => ({
            id: m.id,
            kind: m.kind,
            authority: m.authority,
            text: m.text,
            derived: true,
          })),
      ],
    });
    // Nothing went (read from the store: a `get` is a read, audited too);
    // the one event is the read of what the dry run showed.
    const held = await f.store.getByIds(o, [...closure, keep.memory.id]);
    expect(held.map((m) => m.id).sort()).toEqual([...closure, keep.memory.id].sort());
    const auditAfter = await f.engine.auditList(operator, { ownerId: o, limit: 1000 });
    expect(auditAfter.slice(0, auditBefore.length)).toEqual(auditBefore);
    expect(auditAfter.slice(auditBefore.length)).toMatchObject([
      {
        type: 'read',
        actor: agent.principal,
        memoryIds: dry.memories.map((m) => m.id),
        details: { dryRun: 'forget' },
      },
    ]);
    // A misspelt dry run is refused, not taken for a deletion.
    await expectCode(
      f.engine.forget(user, o, [root.memory.id], { dryrun: true } as never),
      'invalid_input',
    );
    await expectCode(f.engine.forget(user, o, ['no-such-id'], { dryRun: true }), 'not_found');
    await expectCode(
      f.engine.forget(tool, o, [root.memory.id], { dryRun: true }),
      'forbidden_role',
    );
    expect(await f.store.countMemories(o)).toBe(4);

    const receipt = await f.engine.forget(user, o, [root.memory.id], { dryRun: false });
    expect([...receipt.deletedMemoryIds].sort()).toEqual(dry.memoryIds);
    expect((await f.engine.get(user, o, keep.memory.id)).id).toBe(keep.memory.id);
    const events = await f.engine.auditList(operator, { ownerId: o, limit: 1000 });
    expect(events.filter((e) => DELETION_TYPES.includes(e.type))).toHaveLength(1);
  });

  it('a dry run of revoke-source lists what came from the source and what grew out of it; the real call deletes exactly those', async () => {
    const o = f.owner();
    const uri = `https://events.example.com/${o}`;
    const { web, sum, keep } = await pageWithSummary(f, o, uri);

    const dry = await f.engine.revokeSource(user, o, { uri }, { dryRun: true });
    expect(dry.reason).toBe('revoke_source');
    expect(dry.dryRun).toBe(true);
    // The summary inherits the page's origin: it is a root too.
    expect(new Set(dry.memoryIds)).toEqual(new Set([web.id, sum.id]));
    expect(dry.memoryIds).toEqual([...dry.memoryIds].sort());
    expect(dry.requested).toContain(web.id);
    expect(dry.memories.map((m) => m.id).sort()).toEqual([...dry.memoryIds].sort());
    expect(dry.memories.find((m) => m.id === web.id)).toMatchObject({
      authority: 'third_party',
      text: web.text,
      derived: false,
    });
    expect(await f.store.countMemories(o)).toBe(3);
    expect(
      (await f.engine.auditList(operator, { ownerId: o })).filter((e) =>
        DELETION_TYPES.includes(e.type),
      ),
    ).toEqual([]);
    // Nothing from the source: an empty list, as the receipt would be.
    expect(
      await f.engine.revokeSource(user, o, { uri: `${uri}/elsewhere` }, { dryRun: true }),
    ).toEqual({
      ownerId: o,
      reason: 'revoke_source',
      dryRun: true,
      requested: [],
      memoryIds: [],
      memories: [],
    });
    await expectCode(
      f.engine.revokeSource(user, o, { uri, dryRun: true } as never),
      'invalid_input',
    );
    expect(await f.store.countMemories(o)).toBe(3);

    const receipt = await f.engine.revokeSource(user, o, { uri });
    expect([...receipt.deletedMemoryIds].sort()).toEqual(dry.memoryIds);
    expect((await f.engine.get(user, o, keep.id)).id).toBe(keep.id);
  });
});
