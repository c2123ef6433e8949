// Invariant 3, authority from credentials: the role caps the authority
// written; lower authority never supersedes higher on the same key.
import { expect, it } from 'vitest';
import { authenticateApiKey, verifyAuditChain, type AuditEvent } from '@keepgraph/core';
import { agent, conformanceSuite, expectCode, fact, kv, operator, tool, user } from '../harness.ts';

export const authoritySuite = conformanceSuite('invariant 3: authority from credentials', (f) => {
  it('the agent role cannot write user or operator authority', async () => {
    const o = f.owner();
    for (const authority of ['user', 'operator'] as const) {
      await expectCode(
        f.engine.remember(agent, o, fact('Alex is the account owner', { authority })),
        'authority_exceeds_role',
      );
    }
    await expectCode(
      f.engine.remember(
        tool,
        o,
        fact('Alex is the account owner', { authority: 'user', origin: { tool: { name: 'crm' } } }),
      ),
      'authority_exceeds_role',
    );
    expect(await f.store.countMemories(o)).toBe(0);
  });

  it('keeps API keys as hashes: the key authenticates as its role and owners until revoked or expired, each change audited', async () => {
    const o = f.owner();
    const made = await f.engine.createKey(operator, {
      name: 'support bot',
      role: 'agent',
      owners: [o],
      expiresIn: '1h',
    });
    const store = f.store;
    const stored = await store.getApiKey(made.id);
    expect(stored).toMatchObject({
      id: made.id,
      role: 'agent',
      owners: [o],
      revokedAt: null,
      createdBy: operator.principal,
    });
    expect(JSON.stringify(stored)).not.toContain(made.key.slice(21));
    expect((await f.sut.rawContent()).includes(made.key.slice(21))).toBe(false);
    expect(await authenticateApiKey(store, made.key, f.clock.now())).toEqual({
      role: 'agent',
      owners: [o],
      principal: `key:${made.id}`,
      expiresAt: stored!.expiresAt,
    });
    expect(stored!.expiresAt).not.toBeNull();
    // A wrong secret under the right id, and an unknown id, authenticate nobody.
    expect(
      await authenticateApiKey(
        store,
        `${made.key.slice(0, -1)}${made.key.endsWith('A') ? 'B' : 'A'}`,
        f.clock.now(),
      ),
    ).toBeNull();
    expect(
      await authenticateApiKey(store, made.key.replace(made.id, '0'.repeat(16)), f.clock.now()),
    ).toBeNull();
    // Expired after its hour; revoked at once, once.
    f.clock.advance(3_600_001);
    expect(await authenticateApiKey(store, made.key, f.clock.now())).toBeNull();
    const other = await f.engine.createKey(operator, {
      name: 'user app',
      role: 'user',
      owners: 'all',
    });
    expect(await authenticateApiKey(store, other.key, f.clock.now())).not.toBeNull();
    const revoked = await f.engine.revokeKey(operator, other.id);
    expect(revoked).toMatchObject({ id: other.id, live: false });
    expect(await authenticateApiKey(store, other.key, f.clock.now())).toBeNull();
    const again = await f.engine.revokeKey(operator, other.id);
    expect(again.revokedAt).toBe(revoked.revokedAt);
    expect(
      await store.revokeApiKey(other.id, f.clock.now().toISOString(), {
        type: 'key_revoked',
        at: f.clock.now().toISOString(),
        ownerId: null,
        actor: 'x',
        role: 'operator',
        memoryIds: [],
        contentHashes: [],
        reason: null,
        details: {},
      }),
    ).toBe(false);
    await expectCode(f.engine.revokeKey(operator, 'no-such-key'), 'not_found');
    const listed = await f.engine.listKeys(operator);
    expect(listed.map((k) => k.id)).toEqual(expect.arrayContaining([made.id, other.id]));
    expect(JSON.stringify(listed)).not.toMatch(/keyHash|kgk_/);
    // Audited: one event per create and per revocation, naming the key, never the key.
    const events: AuditEvent[] = [];
    for (let after = 0; ;) {
      const page = await store.listAudit({ afterSeq: after, limit: 5000 });
      if (page.length === 0) break;
      events.push(...page);
      after = page[page.length - 1]!.seq;
    }
    const mine = events.filter((e) => [made.id, other.id].includes(String(e.details.keyId)));
    expect(mine.map((e) => e.type)).toEqual(['key_created', 'key_created', 'key_revoked']);
    expect(JSON.stringify(events)).not.toContain(made.key.slice(21));
    expect(verifyAuditChain(events).ok).toBe(true);
  });

  it('refuses key management to every role but operator, and scoped operator keys', async () => {
    for (const caller of [user, agent, tool])
      await expectCode(
        f.engine.createKey(caller, { name: 'x', role: 'user', owners: 'all' }),
        'forbidden_role',
      );
    await expectCode(
      f.engine.createKey(operator, { name: 'x', role: 'operator', owners: ['o'] }),
      'invalid_input',
    );
    await expectCode(
      f.engine.createKey(operator, { name: 'x', role: 'user', owners: [] }),
      'invalid_input',
    );
    await expectCode(
      f.engine.createKey(operator, { name: 'x', role: 'user', owners: 'all', expiresIn: '0d' }),
      'invalid_input',
    );
    await expectCode(
      f.engine.createKey(
        { ...operator, owners: ['o'] },
        { name: 'x', role: 'user', owners: 'all' },
      ),
      'owner_out_of_scope',
    );
  });

  it("defaults the authority to the role's own", async () => {
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
    const high = await f.engine.putByKey(user, o, 'diet', kv('Diet: vegetarian, no fish', 'S'));
    const low = await f.engine.putByKey(tool, o, 'diet', {
      text: 'Diet: eats everything',
      origin: { tool: { name: 'crm' } },
    });
    expect(low.superseded).toBeNull();
    expect(low.memory.conflict).toBe(true);
    const now = await f.engine.getByKey(user, o, 'diet');
    expect(now.current?.id).toBe(high.memory.id);
    expect(now.conflicts.map((m) => m.id)).toEqual([low.memory.id]);
  });

  it('an equal or higher authority supersedes, and the old version is not recalled', async () => {
    const o = f.owner();
    const v1 = await f.engine.putByKey(user, o, 'home-city', fact('Home city is Berlin'));
    const v2 = await f.engine.putByKey(operator, o, 'home-city', fact('Home city is Munich'));
    expect(v2.superseded).toBe(v1.memory.id);
    expect((await f.engine.getByKey(user, o, 'home-city')).current?.id).toBe(v2.memory.id);
    const r = await f.engine.recall(user, o, 'Which city is home?', { topK: 10 });
    expect(r.results.map((h) => h.memory.id)).not.toContain(v1.memory.id);
    expect((await f.engine.get(user, o, v1.memory.id)).supersededBy).toBe(v2.memory.id);
  });
});
