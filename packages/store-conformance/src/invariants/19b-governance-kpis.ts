// The governance KPIs on every store, as the analyst's views read them:
// the median age of live memories, the deletion propagation (a cascade
// timed from its request to its commit), and a daily series that moves with
// writes, refusals, deletions, reads and on-schedule expiry.
import { expect, it } from 'vitest';
import { createEngine } from '@keepgraph/core';
import { type Clock } from '@keepgraph/core/ports';
import { kpiDayFixture } from '@keepgraph/core/testing';
import { conformanceSuite, expectCode, fact, operator, user, userEpisode } from '../harness.ts';

// Built at run time, so this file holds no literal secret for scanners.
const GITHUB_TOKEN = 'ghp_' + 'a8Kd93LmQz7Xv2Rt5Wy1Nc4Pb6Hj0Fs8Ue3G';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const kpisSuite = conformanceSuite(
  'the governance KPIs',
  // A fixed start, well inside a UTC day: the series' rows are days.
  { start: '2026-03-10T08:00:00.000Z' },
  (f) => {
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
      expect(k.series).toEqual([kpiDayFixture(today, { writes: 4 })]);

      // A forget the same day, through an engine whose clock moves as it is
      // read (5 ms a reading): the cascade is timed from the request to the commit.
      let t = f.clock.now().getTime();
      const ticking: Clock = { now: () => new Date((t += 5)) };
      const timed = createEngine({
        store: f.store,
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
      const short = await userEpisode(f, o, 'The gate code changes tomorrow morning', {
        ttlSeconds: 3600,
      });
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
  },
);
