// Invariant 3, authority from credentials: the role caps the authority
// written; lower authority never supersedes higher on the same key.
import { describe, expect, it } from 'vitest';
import { agent, expectCode, sharedFixture, operator, tool, user, type ConformanceOptions } from '../harness.ts';

export function authoritySuite(opts: ConformanceOptions): void {
  describe('invariant 3: authority from credentials', () => {
    const f = sharedFixture(opts);

    it('the agent role cannot write user or operator authority', async () => {
      const o = f.owner();
      for (const authority of ['user', 'operator'] as const) {
        await expectCode(
          f.engine.remember(agent, o, { kind: 'fact', text: 'Alex is the account owner', authority, origin: { sessionId: 'S' } }),
          'authority_exceeds_role',
        );
      }
      await expectCode(
        f.engine.remember(tool, o, { kind: 'fact', text: 'Alex is the account owner', authority: 'user', origin: { tool: { name: 'crm' } } }),
        'authority_exceeds_role',
      );
      expect(await f.engine.deps.store.countMemories(o)).toBe(0);
    });

    it('defaults the authority to the role\'s own', async () => {
      const o = f.owner();
      const { memory } = await f.engine.remember(tool, o, {
        kind: 'fact',
        text: 'Order 1182 shipped on Monday',
        origin: { tool: { name: 'orders', callId: 'c1' } },
      });
      expect(memory.authority).toBe('tool');
    });

    it('a lower-authority claim on the same key is kept as a flagged conflict, not a replacement', async () => {
      const o = f.owner();
      const high = await f.engine.putByKey(user, o, 'diet', { text: 'Diet: vegetarian, no fish', origin: { sessionId: 'S' } });
      const low = await f.engine.putByKey(tool, o, 'diet', { text: 'Diet: eats everything', origin: { tool: { name: 'crm' } } });
      expect(low.superseded).toBeNull();
      expect(low.memory.conflict).toBe(true);
      const now = await f.engine.getByKey(user, o, 'diet');
      expect(now.current?.id).toBe(high.memory.id);
      expect(now.conflicts.map((m) => m.id)).toEqual([low.memory.id]);
    });

    it('an equal or higher authority supersedes, and the old version is not recalled', async () => {
      const o = f.owner();
      const v1 = await f.engine.putByKey(user, o, 'home-city', { text: 'Home city is Berlin', origin: { sessionId: 'S' }, kind: 'fact' });
      const v2 = await f.engine.putByKey(operator, o, 'home-city', { text: 'Home city is Munich', origin: { sessionId: 'S' }, kind: 'fact' });
      expect(v2.superseded).toBe(v1.memory.id);
      expect((await f.engine.getByKey(user, o, 'home-city')).current?.id).toBe(v2.memory.id);
      const r = await f.engine.recall(user, o, 'Which city is home?', { topK: 10 });
      expect(r.results.map((h) => h.memory.id)).not.toContain(v1.memory.id);
      expect((await f.engine.get(user, o, v1.memory.id)).supersededBy).toBe(v2.memory.id);
    });
  });
}
