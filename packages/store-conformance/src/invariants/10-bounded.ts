// Invariant 10, bounded: per-owner caps on records and on the session buffer;
// over the cap the lowest-value memories go through the cascade, audited `cap`.
import { expect, it } from 'vitest';
import { REFLECTION_CALLER, derivedInput, writeDerived } from '@keepgraph/core/jobs';
import { conformanceSuite, derived, operator, user, userEpisode } from '../harness.ts';

export const boundedSuite = conformanceSuite(
  'invariant 10: bounded',
  {
    policy: (p) => ({
      ...p,
      caps: { maxMemoriesPerOwner: 5, sessionBuffer: { ...p.caps.sessionBuffer, maxExchanges: 2 } },
    }),
  },
  (f) => {
    it('evicts the lowest-value memories over the record cap, through the cascade', async () => {
      const o = f.owner();
      const low = await userEpisode(f, o, 'Low-confidence note about a maybe-trip to Iceland', {
        confidence: 0.1,
      });
      const lowChild = await f.engine.remember(
        user,
        o,
        derived('Maybe Iceland', [low.memory.id], { confidence: 0.9 }),
      );
      for (let i = 0; i < 4; i++)
        await userEpisode(f, o, `Confirmed weekly plan number ${i} for the garden club`);
      expect(await f.store.countMemories(o)).toBeLessThanOrEqual(5);
      await userEpisode(f, o, 'Another confirmed plan for the garden club');
      expect(await f.store.countMemories(o)).toBeLessThanOrEqual(5);
      const gone = await f.engine.verifyForgotten(user, o, {
        ids: [low.memory.id, lowChild.memory.id],
      });
      expect(gone.forgotten).toBe(true);
      const evictions = (await f.engine.auditList(operator, { ownerId: o })).filter(
        (e) => e.type === 'evict',
      );
      expect(evictions.length).toBeGreaterThan(0);
      expect(evictions[0]!.reason).toBe('cap');
    });

    it('holds the cap when a job derives a memory for an owner at the cap', async () => {
      const o = f.owner();
      const written = [];
      for (let i = 0; i < 5; i++)
        written.push(await userEpisode(f, o, `Confirmed rota number ${i} for the allotment`));
      expect(await f.store.countMemories(o)).toBe(5);
      const r = await writeDerived(f.engine.deps, REFLECTION_CALLER, o, [
        {
          idParts: ['bounded', o],
          input: derivedInput({
            ...derived('The allotment rota is confirmed every week', [written[4]!.memory.id]),
            kind: 'fact',
          }),
        },
      ]);
      expect(r.written).toHaveLength(1);
      expect(await f.store.countMemories(o)).toBeLessThanOrEqual(5);
      const evictions = (await f.engine.auditList(operator, { ownerId: o })).filter(
        (e) => e.type === 'evict',
      );
      expect(evictions.map((e) => e.reason)).toContain('cap');
    });

    it('keeps at most maxExchanges exchanges in a session buffer', async () => {
      const o = f.owner();
      for (let i = 0; i < 4; i++) {
        await f.engine.sessionAppend(user, o, 's', {
          messages: [
            { role: 'user', text: `question ${i}` },
            { role: 'assistant', text: `answer ${i}` },
          ],
        });
      }
      const ctx = await f.engine.sessionContext(user, o, 's');
      expect(ctx.session.map((m) => m.text)).toEqual([
        'question 2',
        'answer 2',
        'question 3',
        'answer 3',
      ]);
    });
  },
);
