// What the analyst's views read, on every store: the read log as a query
// (which reads served a memory: its blast radius, one owner at a time), the
// dry run of forget and revoke-source (the cascade's closure listed, nothing
// deleted or audited, then the real call deleting exactly those), and the
// governance KPIs (median age, deletion propagation, the daily series).
import { describe, expect, it } from 'vitest';
import { createEngine, type Caller, type Clock, type MemoryInput } from '@keepgraph/core';
import {
  agent,
  derived,
  episode,
  expectCode,
  operator,
  sharedFixture,
  tool,
  user,
  type ConformanceOptions,
} from '../harness.ts';

const DELETION_TYPES = ['delete', 'expire', 'evict', 'revoke_source', 'forget_owner'];
// Built at run time, so this file holds no literal secret for scanners.
const GITHUB_TOKEN = 'ghp_' + 'a8Kd93LmQz7Xv2Rt5Wy1Nc4Pb6Hj0Fs8Ue3G';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const fact = (text: string, extra: Partial<MemoryInput> = {}): MemoryInput => ({
  kind: 'fact',
  text,
  origin: { sessionId: 'facts' },
  ...extra,
});

export function readLogDryRunKpisSuite(opts: ConformanceOptions): void {
  describe('the read log, dry runs of deletion and the governance KPIs', () => {
    // A fixed start, well inside a UTC day: the series' rows are days.
    const f = sharedFixture(opts, { start: '2026-03-10T08:00:00.000Z' });
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
      const tea = await f.engine.remember(user, o, {
        kind: 'preference',
        text: 'Prefers green tea over coffee in the afternoon',
        origin: { sessionId: 'prefs' },
      });
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
      const page = await f.engine.remember(agent, o, {
        kind: 'episode',
        text: 'Families love Casa Verde because of the rooftop pool',
        authority: 'third_party',
        origin: { source: { kind: 'url', uri: 'https://travel-tips.example.net/lisbon' } },
      });
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
      await expectCode(
        f.engine.deps.store.readLog(o, { limit: 10, memoryId: '' }),
        'invalid_input',
      );
      await expectCode(
        f.engine.deps.store.readLog(o, { limit: 10, before: 'soon' }),
        'invalid_input',
      );
      expect((await f.engine.readLog(tool, o)).reads).toEqual([]);
    });

    it('a dry run of forget lists the closure, deletes and audits nothing; the real call deletes exactly those', async () => {
      const o = f.owner();
      const root = await f.engine.remember(
        user,
        o,
        episode('Morgan said the Lisbon trip is planned for late May'),
      );
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
      const keep = await f.engine.remember(user, o, episode('Morgan likes the window seat'));
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
      const held = await f.engine.deps.store.getByIds(o, [...closure, keep.memory.id]);
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
      expect(await f.engine.deps.store.countMemories(o)).toBe(4);

      const receipt = await f.engine.forget(user, o, [root.memory.id], { dryRun: false });
      expect([...receipt.deletedMemoryIds].sort()).toEqual(dry.memoryIds);
      expect((await f.engine.get(user, o, keep.memory.id)).id).toBe(keep.memory.id);
      const events = await f.engine.auditList(operator, { ownerId: o, limit: 1000 });
      expect(events.filter((e) => DELETION_TYPES.includes(e.type))).toHaveLength(1);
    });

    it('a dry run of revoke-source lists what came from the source and what grew out of it; the real call deletes exactly those', async () => {
      const o = f.owner();
      const uri = `https://events.example.com/${o}`;
      const web = await f.engine.remember(user, o, {
        kind: 'fact',
        text: 'The conference venue changed to Hall B according to the event page',
        authority: 'third_party',
        origin: { source: { kind: 'url', uri } },
      });
      const sum = await f.engine.remember(
        user,
        o,
        derived('Conference is in Hall B', [web.memory.id]),
      );
      const keep = await f.engine.remember(
        user,
        o,
        episode('I booked the hotel next to the venue myself'),
      );

      const dry = await f.engine.revokeSource(user, o, { uri }, { dryRun: true });
      expect(dry.reason).toBe('revoke_source');
      expect(dry.dryRun).toBe(true);
      // The summary inherits the page's origin: it is a root too.
      expect(new Set(dry.memoryIds)).toEqual(new Set([web.memory.id, sum.memory.id]));
      expect(dry.memoryIds).toEqual([...dry.memoryIds].sort());
      expect(dry.requested).toContain(web.memory.id);
      expect(dry.memories.map((m) => m.id).sort()).toEqual([...dry.memoryIds].sort());
      expect(dry.memories.find((m) => m.id === web.memory.id)).toMatchObject({
        authority: 'third_party',
        text: web.memory.text,
        derived: false,
      });
      expect(await f.engine.deps.store.countMemories(o)).toBe(3);
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
      expect(await f.engine.deps.store.countMemories(o)).toBe(3);

      const receipt = await f.engine.revokeSource(user, o, { uri });
      expect([...receipt.deletedMemoryIds].sort()).toEqual(dry.memoryIds);
      expect((await f.engine.get(user, o, keep.memory.id)).id).toBe(keep.memory.id);
    });

    it('the KPIs give the median age, the deletion propagation and a daily series that moves', async () => {
      const o = f.owner();
      const start = f.clock.now().getTime();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        if (i > 0) f.clock.advance(HOUR);
        ids.push(
          (await f.engine.remember(user, o, fact(`Kpi note ${i}: the shed key is under pot ${i}`)))
            .memory.id,
        );
      }
      // Created at +0h, +1h, +2h, +3h, now +3h: the lower median is +1h, 2 h old.
      let k = await f.engine.kpis(operator, { ownerId: o });
      expect(k.memories).toBe(4);
      expect(k.medianAgeMs).toBe(2 * HOUR);
      expect(k.deletionPropagation).toEqual({ count: 0, p50Ms: null, maxMs: null });
      const today = new Date(start).toISOString().slice(0, 10);
      expect(k.series).toEqual([
        {
          day: today,
          writes: 4,
          refusals: 0,
          deletions: 0,
          reads: 0,
          expired: 0,
          onScheduleShare: null,
          deletionP50Ms: null,
        },
      ]);

      // A forget the same day, through an engine whose clock moves as it is
      // read (5 ms a reading): the cascade is timed from the request to the commit.
      let t = f.clock.now().getTime();
      const ticking: Clock = { now: () => new Date((t += 5)) };
      const timed = createEngine({
        store: f.engine.deps.store,
        embedder: f.engine.deps.embedder,
        policy: f.policy,
        clock: ticking,
      });
      await timed.forget(user, o, [ids[0]!]);
      await f.engine.recall(user, o, 'where is the shed key');
      const deletion = (await f.engine.auditList(operator, { ownerId: o, limit: 1000 })).find(
        (e) => e.type === 'delete',
      )!;
      expect(deletion.details.durationMs).toEqual(expect.any(Number));
      expect(deletion.details.durationMs as number).toBeGreaterThan(0);

      k = await f.engine.kpis(operator, { ownerId: o });
      // +1h, +2h, +3h are left: the median is +2h, 1 h old.
      expect(k.medianAgeMs).toBe(HOUR);
      expect(k.deletions).toBe(1);
      expect(k.deletionPropagation.count).toBe(1);
      expect(k.deletionPropagation.p50Ms).toBe(deletion.details.durationMs);
      expect(k.deletionPropagation.maxMs).toBe(deletion.details.durationMs);
      expect(k.series).toHaveLength(1);
      expect(k.series[0]).toMatchObject({
        day: today,
        writes: 4,
        deletions: 1,
        reads: 1,
        deletionP50Ms: deletion.details.durationMs,
      });

      // The next day: a write, a refusal, an expiry purged 30 s late.
      f.clock.set(new Date(start + DAY));
      const short = await f.engine.remember(
        user,
        o,
        episode('The gate code changes tomorrow morning', { ttlSeconds: 3600 }),
      );
      await expectCode(
        f.engine.remember(user, o, fact(`use token ${GITHUB_TOKEN} for the repo`)),
        'refused_secret',
      );
      f.clock.advance(HOUR + 30_000);
      const run = await f.engine.expireDue(operator);
      expect(run.receipts.flatMap((r) => r.deletedMemoryIds)).toContain(short.memory.id);
      k = await f.engine.kpis(operator, { ownerId: o });
      const tomorrow = new Date(start + DAY).toISOString().slice(0, 10);
      expect(k.series.map((d) => d.day)).toEqual([today, tomorrow]);
      expect(k.series[1]).toMatchObject({
        day: tomorrow,
        writes: 1,
        refusals: 1,
        deletions: 1,
        reads: 0,
        expired: 1,
        onScheduleShare: 1,
      });
      expect(k.series[1]!.deletionP50Ms).toEqual(expect.any(Number));
      expect(k.deletionPropagation.count).toBe(2);
      // The expired memory left the live ones: the median is of +1h..+3h again.
      expect(k.medianAgeMs).toBe(f.clock.now().getTime() - (start + 2 * HOUR));
      expect(k.expiry).toMatchObject({ purged: 1, onScheduleShare: 1, lagP50Ms: 30_000 });

      // Beyond 90 days, the old days leave the series (the totals keep them).
      f.clock.set(new Date(start + 95 * DAY));
      k = await f.engine.kpis(operator, { ownerId: o });
      expect(k.series).toEqual([]);
      expect(k.writes).toBe(5);
      // Store-wide, an owner's memories count among the rest.
      expect((await f.engine.kpis(operator)).medianAgeMs).toEqual(expect.any(Number));
    });
  });
}
