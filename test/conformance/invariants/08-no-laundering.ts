// Invariant 8, no laundering: a derived memory carries the union of its
// sources' origins, an edge to each, and expires no later than its earliest
// source unless an operator confirms it.
import { describe, expect, it } from 'vitest';
import { derived, episode, sharedFixture, operator, user, type ConformanceOptions } from '../harness.ts';

export function noLaunderingSuite(opts: ConformanceOptions): void {
  describe('invariant 8: no laundering', () => {
    const f = sharedFixture(opts);

    it("a summary carries the union of its sources' origins and expires no later than the earliest", async () => {
      const o = f.owner();
      const a = await f.engine.remember(user, o, episode('Morgan started learning Portuguese in January', { ttlSeconds: 2 * 86400, origin: { sessionId: 'A', turn: '1' } }));
      const b = await f.engine.remember(user, o, {
        kind: 'fact',
        text: 'Morgan enrolled in an evening Portuguese course downtown',
        authority: 'tool',
        origin: { tool: { name: 'calendar', callId: 'c-9' } },
        ttlSeconds: 30 * 86400,
      });
      const s = await f.engine.remember(user, o, derived('Morgan is learning Portuguese', [a.memory.id, b.memory.id], { ttlSeconds: 60 * 86400 }));
      expect(s.memory.expiresAt).toBe(a.memory.expiresAt);
      expect(s.memory.derivedFrom).toEqual([a.memory.id, b.memory.id]);
      const sessions = s.memory.sourceOrigins.map((x) => x.sessionId ?? x.tool?.name);
      expect(sessions).toEqual(expect.arrayContaining(['A', 'calendar']));
      expect(s.memory.sourceOrigins).toHaveLength(2);

      // A summary of the summary inherits the same union, not just its direct source.
      const s2 = await f.engine.remember(user, o, derived('Morgan studies languages', [s.memory.id]));
      expect(s2.memory.sourceOrigins).toHaveLength(2);
      expect(s2.memory.expiresAt <= a.memory.expiresAt).toBe(true);

      const graph = await f.engine.lineage(user, o, s2.memory.id);
      expect(graph.nodes.map((n) => n.key).sort()).toEqual([a.memory.id, b.memory.id, s.memory.id, s2.memory.id].sort());
      expect(graph.edges).toHaveLength(3);
    });

    it('only an operator can keep a derived memory past its earliest source', async () => {
      const o = f.owner();
      const a = await f.engine.remember(user, o, episode('Quinn is renovating the kitchen this autumn', { ttlSeconds: 2 * 86400 }));
      const byUser = await f.engine.remember(user, o, derived('Quinn renovates', [a.memory.id], { ttlSeconds: 30 * 86400, confirmExpiry: true }));
      expect(byUser.memory.expiresAt).toBe(a.memory.expiresAt);
      const byOperator = await f.engine.remember(operator, o, derived('Quinn renovates the kitchen', [a.memory.id], { ttlSeconds: 30 * 86400, confirmExpiry: true }));
      expect(byOperator.memory.expiresAt > a.memory.expiresAt).toBe(true);
    });
  });
}
