// Invariant 2, attributed: origin, authority, createdAt and expiresAt on every
// memory; an agent_inferred memory names its sources.
import { expect, it } from 'vitest';
import {
  agent,
  conformanceSuite,
  expectCode,
  fact,
  operator,
  user,
  userEpisode,
} from '../harness.ts';

export const attributedSuite = conformanceSuite('invariant 2: attributed', (f) => {
  it('stores origin, authority, createdAt and expiresAt, and the writer', async () => {
    const o = f.owner();
    const { memory } = await userEpisode(f, o, 'I moved to Lisbon in March for a new job');
    const stored = await f.engine.get(user, o, memory.id);
    expect(stored.origin.sessionId).toBe('S1');
    expect(stored.origin.writtenBy).toBe(user.principal);
    expect(stored.origin.observedAt).toBeTruthy();
    expect(stored.authority).toBe('user');
    expect(Date.parse(stored.createdAt)).not.toBeNaN();
    expect(Date.parse(stored.expiresAt)).toBeGreaterThan(Date.parse(stored.createdAt));
    expect(stored.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a memory without origin, and one with an empty origin', async () => {
    const o = f.owner();
    await expectCode(
      f.engine.remember(user, o, { kind: 'fact', text: 'The office is in Porto' }),
      'invalid_input',
    );
    await expectCode(
      f.engine.remember(user, o, { kind: 'fact', text: 'The office is in Porto', origin: {} }),
      'invalid_input',
    );
    expect(await f.store.countMemories(o)).toBe(0);
  });

  it('refuses an agent_inferred memory that names no sources', async () => {
    const o = f.owner();
    await expectCode(
      f.engine.remember(agent, o, fact('Alex seems to dislike finance clients')),
      'refused_missing_sources',
    );
    await expectCode(
      f.engine.remember(
        agent,
        o,
        fact('Alex seems to dislike finance clients', { derivedFrom: ['no-such-memory'] }),
      ),
      'refused_missing_sources',
    );
  });

  it('reports 100% attributed memories', async () => {
    const o = f.owner();
    await userEpisode(f, o, 'We adopted a cat named Miso last spring');
    const k = await f.engine.kpis(operator);
    expect(k.memories).toBeGreaterThan(0);
    expect(k.attributedShare).toBe(1);
  });
});
