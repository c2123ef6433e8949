// Invariant 5, copies out: what the engine returns is a copy.
import { expect, it } from 'vitest';
import { conformanceSuite, user, userEpisode } from '../harness.ts';

export const copiesOutSuite = conformanceSuite('invariant 5: copies out', (f) => {
  it('mutating a returned memory changes nothing stored', async () => {
    const o = f.owner();
    const written = await userEpisode(f, o, 'Sam plays the cello in a community orchestra', {
      tags: ['music'],
    });
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
