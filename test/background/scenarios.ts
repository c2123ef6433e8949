// The background scenarios, written once and run in both modes (embedded
// with the in-process runner, server with BullMQ workers): the seed's
// reflection, compaction and its rebuild, and expiry on schedule.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCompactionSummary, type Memory } from '@keepgraph/core';
import { operator, user, type BackgroundFixture, type BackgroundMode } from './harness.ts';

export const SEED_EPISODES = [
  'Searched remote job boards for web development jobs.',
  'Reviewed the proposal for a new finance-sector client. Feedback: Alex strongly dislikes finance clients after the last project.',
  'Searched for new client leads, leaving out anything in finance.',
];

/** Every live memory of an owner (ids sorted), read through the store. */
export async function liveMemories(f: BackgroundFixture, ownerId: string): Promise<Memory[]> {
  const now = f.clock.now().toISOString();
  const rows = await f.store.getByIds(ownerId, await f.store.listIds(ownerId));
  return rows.filter((m) => m.expiresAt > now && m.supersededBy === null);
}

export function runBackgroundScenarios(mode: BackgroundMode): void {
  describe(`background jobs: ${mode.name}`, () => {
    let f: BackgroundFixture;
    beforeEach(async () => {
      f = await mode.fixture();
    });
    afterEach(async () => {
      await f.close();
    });

    it("the seed: reflection turns the feedback into PREFERS_AGAINST with its reason and lineage; recall puts it first; forgetting the feedback takes rule and relation", async () => {
      const o = f.owner();
      const eps = [];
      for (const [i, text] of SEED_EPISODES.entries()) {
        eps.push(
          (
            await f.engine.remember(user, o, {
              kind: 'episode',
              text,
              origin: { sessionId: 'seed', turn: String(i + 1) },
            })
          ).memory,
        );
        f.clock.advance(60_000);
      }
      await f.settle();

      const derived = (await liveMemories(f, o)).filter((m) => m.derivedFrom.length > 0);
      expect(derived).toHaveLength(1);
      const rule = derived[0]!;
      expect(rule).toMatchObject({
        kind: 'preference',
        authority: 'agent_inferred',
        derivedFrom: [eps[1]!.id],
        origin: { extractor: { name: 'keepgraph-statements' } },
      });
      // No laundering: the episode's origin travels with the rule.
      expect(rule.sourceOrigins).toEqual([expect.objectContaining({ sessionId: 'seed', turn: '2' })]);
      expect(rule.expiresAt <= eps[1]!.expiresAt).toBe(true);
      const relations = await f.store.relations(o);
      expect(relations).toEqual([
        expect.objectContaining({
          type: 'PREFERS_AGAINST',
          subject: expect.objectContaining({ name: 'Alex' }),
          object: expect.objectContaining({ name: 'finance clients' }),
          reasons: ['the last project'],
          assertedBy: [rule.id],
        }),
      ]);

      const why = await f.engine.why(user, o, 'Should I pitch a new fintech client?');
      expect(why.results[0]!.memory.id).toBe(rule.id);
      expect(why.results[0]!.derivedFrom).toEqual([eps[1]!.id]);
      const lineage = why.lineage[rule.id]!;
      expect(lineage.nodes.map((n) => n.key).sort()).toEqual([rule.id, eps[1]!.id].sort());
      expect(lineage.edges).toEqual([
        expect.objectContaining({ source: rule.id, target: eps[1]!.id }),
      ]);

      const receipt = await f.engine.forget(user, o, [eps[1]!.id]);
      expect(receipt.deletedMemoryIds.sort()).toEqual([eps[1]!.id, rule.id].sort());
      expect(receipt.relationEdgesDeleted).toBe(1);
      await f.settle();
      expect(await f.store.relations(o)).toEqual([]);
      const left = await liveMemories(f, o);
      expect(left.map((m) => m.id).sort()).toEqual([eps[0]!.id, eps[2]!.id].sort());
    });

    it('20 near-duplicates compact into one summary with the union of their origins; deleting a member rebuilds it from the 19', async () => {
      const o = f.owner();
      const members: Memory[] = [];
      for (let i = 1; i <= 20; i++) {
        const r = await f.engine.remember(user, o, {
          kind: 'episode',
          text: `Booked flight ${i} for Alex: aisle seat, economy class, one checked bag.`,
          origin: { sessionId: `trip-${i}`, turn: '1' },
        });
        members.push(r.memory);
        f.clock.advance(1000);
      }
      // Writes trigger compaction with reflection (every N episodes); the
      // schedule is what makes sure the last ones join the cluster too.
      await f.settle();
      await f.tickConsolidation();
      await f.settle();

      const summaries = (await liveMemories(f, o)).filter(isCompactionSummary);
      expect(summaries).toHaveLength(1);
      const summary = summaries[0]!;
      expect([...summary.derivedFrom].sort()).toEqual(members.map((m) => m.id).sort());
      expect(summary.sourceOrigins.map((x) => x.sessionId).sort()).toEqual(
        members.map((m) => m.origin.sessionId).sort(),
      );
      // Members are no longer recalled: the summary stands in for them.
      const hits = await f.engine.recall(user, o, 'Which seat does Alex book on flights?');
      expect(hits.results[0]!.memory.id).toBe(summary.id);
      expect(hits.results.some((h) => members.some((m) => m.id === h.memory.id))).toBe(false);

      const gone = members[7]!;
      const receipt = await f.engine.forget(user, o, [gone.id]);
      expect(receipt.deletedMemoryIds).toContain(summary.id);
      await f.settle();
      const rebuilt = (await liveMemories(f, o)).filter(isCompactionSummary);
      expect(rebuilt).toHaveLength(1);
      expect([...rebuilt[0]!.derivedFrom].sort()).toEqual(
        members.filter((m) => m !== gone).map((m) => m.id).sort(),
      );
      expect(rebuilt[0]!.sourceOrigins).toHaveLength(19);
      expect(rebuilt[0]!.sourceOrigins.map((x) => x.sessionId)).not.toContain(gone.origin.sessionId);
    });

    it('1,000 memories expiring over a minute are purged within 60 s of expiry, never recalled after it, and the on-schedule KPI reads 100%', async () => {
      const o = f.owner();
      const t0 = f.clock.now().getTime();
      // kv's policy floor is 60 s: expiries spread over [60 s, 120 s).
      const inputs = Array.from({ length: 1000 }, (_, i) => ({
        kind: 'kv' as const,
        key: `k${i}`,
        text: `parking spot note number ${i} for the office garage`,
        origin: { sessionId: 'expiry', turn: String(i) },
        ttlSeconds: 60 + (i % 60),
      }));
      for (let i = 0; i < inputs.length; i += 250) {
        const r = await f.engine.rememberMany(user, o, inputs.slice(i, i + 250));
        expect(r.failed).toEqual([]);
      }
      const expiries = new Map<string, number>();
      for (const m of await liveMemories(f, o)) expiries.set(m.id, new Date(m.expiresAt).getTime());
      expect(expiries.size).toBe(1000);

      // The schedule ticks every 5 s of (manual) time; recall in between.
      f.clock.set(new Date(t0 + 55_000));
      for (let step = 0; step < 16; step++) {
        f.clock.advance(5_000);
        await f.tickExpiry();
        await f.settle();
        const now = f.clock.now().getTime();
        const left = await f.store.getByIds(o, [...expiries.keys()]);
        for (const m of left) expect(expiries.get(m.id)! - now + 60_000).toBeGreaterThan(0);
        const hits = await f.engine.recall(user, o, 'parking spot note for the office garage', {
          topK: 20,
        });
        for (const h of hits.results)
          expect(new Date(h.memory.expiresAt).getTime()).toBeGreaterThan(now);
      }
      expect(await f.store.getByIds(o, [...expiries.keys()])).toEqual([]);
      const k = await f.engine.kpis(operator, { ownerId: o });
      expect(k.expiry.purged).toBe(1000);
      expect(k.expiry.onScheduleShare).toBe(1);
      expect(k.expiry.lagMaxMs).toBeLessThanOrEqual(60_000);
    });
  });
}
