// Invariant 8, no laundering: a derived memory carries the union of its
// sources' origins, an edge to each, and expires no later than its earliest
// source unless an operator confirms it; an inference vouches for no more
// than its weakest source.
import { expect, it } from 'vitest';
import type { Caller, MemoryInput } from '@keepgraph/core';
import {
  agent,
  conformanceSuite,
  derived,
  operator,
  pageSays,
  tool,
  toolSays,
  user,
  userEpisode,
} from '../harness.ts';

export const noLaunderingSuite = conformanceSuite('invariant 8: no laundering', (f) => {
  it("a summary carries the union of its sources' origins and expires no later than the earliest", async () => {
    const o = f.owner();
    const a = await userEpisode(f, o, 'Morgan started learning Portuguese in January', {
      ttlSeconds: 2 * 86400,
      origin: { sessionId: 'A', turn: '1' },
    });
    const b = await f.engine.remember(
      user,
      o,
      toolSays(
        'Morgan enrolled in an evening Portuguese course downtown',
        { name: 'calendar', callId: 'c-9' },
        { authority: 'tool', ttlSeconds: 30 * 86400 },
      ),
    );
    const s = await f.engine.remember(
      user,
      o,
      derived('Morgan is learning Portuguese', [a.memory.id, b.memory.id], {
        ttlSeconds: 60 * 86400,
      }),
    );
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
    expect(graph.nodes.map((n) => n.key).sort()).toEqual(
      [a.memory.id, b.memory.id, s.memory.id, s2.memory.id].sort(),
    );
    expect(graph.edges).toHaveLength(3);
  });

  it("an inference vouches for no more than its weakest source; a person's own word keeps theirs", async () => {
    const o = f.owner();
    /** What `caller` derives from `sources`, as kept. */
    const claim = async (
      caller: Caller,
      text: string,
      sources: string[],
      extra: Partial<MemoryInput> = {},
    ) => (await f.engine.remember(caller, o, derived(text, sources, extra))).memory;
    const page = (
      await f.engine.remember(
        agent,
        o,
        pageSays(
          'Casa Verde is the only hotel in Lisbon worth booking, every guest agrees',
          'https://travel-tips.example.net/lisbon',
          { kind: 'episode' },
        ),
      )
    ).memory;
    const said = (await userEpisode(f, o, 'Dana wants a quiet hotel near the river in Lisbon'))
      .memory;
    const both = [page.id, said.id];
    // An agent or a tool that derives from the page only infers: the page's authority, whatever it asks.
    const inferred = await claim(agent, 'Dana should stay at Casa Verde', both);
    expect(inferred.authority).toBe('third_party');
    const byTool = await claim(tool, 'Casa Verde suits Dana', [page.id], { authority: 'tool' });
    expect(byTool.authority).toBe('third_party');
    // Transitively: a summary of the inference is no better.
    const again = await claim(agent, 'Dana: Casa Verde', [inferred.id, said.id]);
    expect(again.authority).toBe('third_party');
    // From the owner's own words alone, an inference is the agent's.
    const own = await claim(agent, 'Dana wants quiet', [said.id]);
    expect(own.authority).toBe('agent_inferred');
    // A user or an operator vouches for what they write themselves.
    const vouched = await claim(user, 'Dana picked Casa Verde', [page.id], { authority: 'user' });
    expect(vouched.authority).toBe('user');
    const confirmed = await claim(operator, 'Casa Verde is on the approved list', [page.id], {
      authority: 'operator',
    });
    expect(confirmed.authority).toBe('operator');
    // The audit says what was asked for and what was kept.
    const writes = (await f.engine.auditList(operator, { ownerId: o, limit: 100 })).filter(
      (e) => e.type === 'write',
    );
    expect(writes.find((e) => e.memoryIds[0] === inferred.id)?.details).toMatchObject({
      authority: 'third_party',
      requestedAuthority: 'agent_inferred',
    });
    expect(writes.find((e) => e.memoryIds[0] === own.id)?.details).not.toHaveProperty(
      'requestedAuthority',
    );
    // A claim read from the page never supersedes a better-vouched one on its key.
    const key = 'preference:dana:hotel';
    const mine = await claim(agent, 'Dana prefers a quiet hotel', [said.id], {
      kind: 'preference',
      key,
    });
    const theirs = await claim(agent, 'Dana prefers Casa Verde', [page.id], {
      kind: 'preference',
      key,
    });
    expect(theirs).toMatchObject({ authority: 'third_party', conflict: true, supersedes: null });
    expect((await f.engine.getByKey(user, o, key)).current?.id).toBe(mine.id);
  });

  it('only an operator can keep a derived memory past its earliest source', async () => {
    const o = f.owner();
    const a = await userEpisode(f, o, 'Quinn is renovating the kitchen this autumn', {
      ttlSeconds: 2 * 86400,
    });
    const byUser = await f.engine.remember(
      user,
      o,
      derived('Quinn renovates', [a.memory.id], { ttlSeconds: 30 * 86400, confirmExpiry: true }),
    );
    expect(byUser.memory.expiresAt).toBe(a.memory.expiresAt);
    const byOperator = await f.engine.remember(
      operator,
      o,
      derived('Quinn renovates the kitchen', [a.memory.id], {
        ttlSeconds: 30 * 86400,
        confirmExpiry: true,
      }),
    );
    expect(byOperator.memory.expiresAt > a.memory.expiresAt).toBe(true);
  });
});
