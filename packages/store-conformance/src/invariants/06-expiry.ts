// Invariant 6, expired means gone: never recalled after expiry, whatever the
// sweeper's lag; the sweeper purges with the cascade and records schedule.
import { expect, it } from 'vitest';
import { conformanceSuite, derived, operator, user, userEpisode } from '../harness.ts';

export const expirySuite = conformanceSuite('invariant 6: expired means gone', (f) => {
  it('an expired memory is never recalled, even before the sweeper runs', async () => {
    const o = f.owner();
    const min = 3600; // the default policy's smallest episode TTL is well below a day
    const { memory } = await userEpisode(
      f,
      o,
      'The gate code for the garage is temporary until Friday',
      { ttlSeconds: min },
    );
    expect(
      (await f.engine.recall(user, o, 'garage gate code')).results.map((h) => h.memory.id),
    ).toContain(memory.id);
    f.clock.advance(min * 1000 + 1);
    const r = await f.engine.recall(user, o, 'garage gate code', { topK: 20 });
    expect(r.results.map((h) => h.memory.id)).not.toContain(memory.id);
    // The sweeper then purges it, on schedule (moments after its expiry).
    const run = await f.engine.expireDue(operator);
    expect(run.receipts.flatMap((x) => x.deletedMemoryIds)).toContain(memory.id);
  });

  it('a deleted memory is never recalled', async () => {
    const o = f.owner();
    const { memory } = await userEpisode(f, o, 'Riley is allergic to peanuts and shellfish');
    const other = await userEpisode(f, o, 'Riley is also allergic to cat hair');
    const before = await f.engine.recall(user, o, 'What is Riley allergic to?', { topK: 20 });
    expect(before.results.map((h) => h.memory.id)).toContain(memory.id);
    await f.engine.forget(user, o, [memory.id]);
    const r = await f.engine.recall(user, o, 'What is Riley allergic to?', { topK: 20 });
    // The recall still answers (with the other memory): the deleted one is missing, not everything.
    expect(r.results.map((h) => h.memory.id)).toEqual([other.memory.id]);
  });

  it('the sweeper purges with the cascade and records scheduled vs actual purge time', async () => {
    const o = f.owner();
    const src = await userEpisode(f, o, 'Our team standup moves to 9:30 starting next week', {
      ttlSeconds: 7200,
    });
    const sum = await f.engine.remember(user, o, derived('Standup is at 9:30', [src.memory.id]));
    expect(sum.memory.expiresAt <= src.memory.expiresAt).toBe(true);
    f.clock.advance(7200 * 1000 + 5000);
    const run = await f.engine.expireDue(operator);
    const purged = run.receipts.flatMap((r) => r.deletedMemoryIds);
    expect(purged).toEqual(expect.arrayContaining([src.memory.id, sum.memory.id]));
    const gone = await f.engine.verifyForgotten(user, o, { ids: [src.memory.id, sum.memory.id] });
    expect(gone.forgotten).toBe(true);
    // This owner's purge is audited with scheduled and actual times, 5 s apart.
    const events = await f.engine.auditList(operator, { ownerId: o });
    const exp = events.find((e) => e.type === 'expire')!;
    const scheduled = exp.details.scheduled as Record<string, string>;
    expect(Object.keys(scheduled).sort()).toEqual([src.memory.id, sum.memory.id].sort());
    for (const at of Object.values(scheduled)) {
      const lag = Date.parse(String(exp.details.purgedAt)) - Date.parse(at);
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThanOrEqual(60_000);
    }
    // The KPI of this owner alone: a shared database holds other tests' purges.
    const k = await f.engine.kpis(operator, { ownerId: o });
    expect(k.expiry.purged).toBe(2);
    expect(k.expiry.onScheduleShare).toBe(1);
    expect(k.expiry.lagMaxMs).toBeLessThanOrEqual(60_000);
  });
});
