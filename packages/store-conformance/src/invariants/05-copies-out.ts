// Invariant 5, copies out: what the engine returns is a copy.
import { describe, expect, it } from 'vitest';
import { episode, sharedFixture, user, type ConformanceOptions } from '../harness.ts';

export function copiesOutSuite(opts: ConformanceOptions): void {
  describe('invariant 5: copies out', () => {
    const f = sharedFixture(opts);

    it('mutating a returned memory changes nothing stored', async () => {
      const o = f.owner();
      const written = await f.engine.remember(user, o, episode('Sam plays the cello in a community orchestra', { tags: ['music'] }));
      written.memory.text = 'tampered';
      written.memory.tags.push('tampered');
      written.memory.origin.sessionId = 'tampered';

      const got = await f.engine.get(user, o, written.memory.id);
      got.text = 'tampered';
      got.derivedFrom.push('x');

      const r = await f.engine.recall(user, o, 'What instrument does Sam play?');
      const hit = r.results[0]!;
      hit.memory.text = 'tampered';
      hit.origin.sessionId = 'tampered';
      hit.memory.tags.length = 0;

      const fresh = await f.engine.get(user, o, written.memory.id);
      expect(fresh.text).toBe('Sam plays the cello in a community orchestra');
      expect(fresh.tags).toEqual(['music']);
      expect(fresh.origin.sessionId).toBe('S1');
      expect(fresh.derivedFrom).toEqual([]);
      const again = await f.engine.recall(user, o, 'What instrument does Sam play?');
      expect(again.results[0]!.memory.text).toBe('Sam plays the cello in a community orchestra');
    });
  });
}
