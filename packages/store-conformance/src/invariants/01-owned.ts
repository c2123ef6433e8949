// Invariant 1, owned: no write without an owner; every read and delete is
// scoped to one owner; (owner, key) never answers with another owner's value.
import { expect, it } from 'vitest';
import {
  agent,
  conformanceSuite,
  episode,
  expectCode,
  kv,
  operator,
  user,
  userEpisode,
} from '../harness.ts';

export const ownedSuite = conformanceSuite('invariant 1: owned', (f) => {
  it('two spellings of one name are one owner (NFC)', async () => {
    const base = f.owner();
    const { memory } = await f.engine.remember(
      user,
      `e\u0301le\u0300ve-${base}`,
      episode('The pupil is learning algebra this term'),
    );
    expect(memory.ownerId).toBe(`\u00e9l\u00e8ve-${base}`);
    const r = await f.engine.recall(user, `\u00e9l\u00e8ve-${base}`, 'algebra');
    expect(r.results.map((h) => h.memory.id)).toEqual([memory.id]);
  });

  it('refuses a write with a blank or missing owner, and stores nothing', async () => {
    const before = (await f.engine.kpis(operator)).memories;
    await expectCode(
      f.engine.remember(user, '   ', episode('I like hiking in the Alps every summer')),
      'owner_required',
    );
    await expectCode(
      f.engine.remember(user, '', episode('I like hiking in the Alps every summer')),
      'owner_required',
    );
    await expectCode(
      f.engine.remember(user, undefined, episode('I like hiking in the Alps every summer')),
      'owner_required',
    );
    expect((await f.engine.kpis(operator)).memories).toBe(before);
  });

  it('refuses owner-less reads and deletes', async () => {
    await expectCode(f.engine.recall(user, ' ', 'hiking'), 'owner_required');
    await expectCode(f.engine.getByKey(user, '', 'k'), 'owner_required');
    await expectCode(f.engine.forget(user, '', ['x']), 'owner_required');
    // Not trimmed: an id with surrounding whitespace or invisible characters is refused, never another owner.
    for (const bad of [' ann', 'ann\t', 'an\u200bn', 'a\u0000n'])
      await expectCode(
        userEpisode(f, bad, 'I like hiking in the Alps every summer'),
        'invalid_input',
      );
    await expectCode(f.engine.recall(user, 'x'.repeat(257), 'hiking'), 'invalid_input');
  });

  it('(owner, key) absent returns nothing while another owner holds the key', async () => {
    const a = f.owner();
    const b = f.owner();
    await f.engine.putByKey(user, a, 'favourite-colour', kv('Favourite colour is teal', 'S'));
    const mine = await f.engine.getByKey(user, a, 'favourite-colour');
    expect(mine.current?.text).toBe('Favourite colour is teal');
    const theirs = await f.engine.getByKey(user, b, 'favourite-colour');
    expect(theirs.current).toBeNull();
    expect(theirs.conflicts).toEqual([]);
  });

  it("cannot get, delete or trace another owner's memory by id", async () => {
    const a = f.owner();
    const b = f.owner();
    const { memory } = await userEpisode(f, a, 'Alex prefers aisle seats on long flights');
    await expectCode(f.engine.get(user, b, memory.id), 'not_found');
    await expectCode(f.engine.forget(user, b, [memory.id]), 'not_found');
    await expectCode(f.engine.lineage(user, b, memory.id), 'not_found');
    expect((await f.engine.get(user, a, memory.id)).id).toBe(memory.id);
  });

  it("10 owners with near-identical memories never see each other's", async () => {
    const owners = Array.from({ length: 10 }, () => f.owner());
    const ids = new Map<string, string>();
    for (const [i, o] of owners.entries()) {
      const { memory } = await userEpisode(
        f,
        o,
        `My dentist appointment is on Tuesday at ${9 + (i % 3)} o'clock with Dr. Rivera`,
      );
      ids.set(o, memory.id);
    }
    for (const o of owners) {
      const r = await f.engine.recall(user, o, 'When is my dentist appointment?', { topK: 10 });
      expect(r.results.length).toBeGreaterThan(0);
      for (const hit of r.results) {
        expect(hit.memory.ownerId).toBe(o);
        expect(hit.memory.id).toBe(ids.get(o));
      }
    }
  });

  it('audit and aggregate figures are operator-only', async () => {
    await expectCode(f.engine.auditList(user), 'forbidden_role');
    await expectCode(f.engine.auditVerify(agent), 'forbidden_role');
    await expectCode(f.engine.kpis(user), 'forbidden_role');
  });
});
