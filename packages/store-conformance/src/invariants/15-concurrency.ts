// Check-then-act under concurrency: supersession by key and the per-owner cap
// are decided from reads made before the write. 50 parallel puts of one key
// must leave exactly one current value, and 50 parallel writes at the cap
// must never leave the owner above it once they are done.
import { expect, it } from 'vitest';
import { conformanceSuite, fact, kv, sharedFixture, user } from '../harness.ts';

const PARALLEL = 50;

/** Why the calls that failed failed: [] when every one succeeded. */
const rejectionReasons = (results: PromiseSettledResult<unknown>[]): unknown[] =>
  results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);

const CAP = 20;

export const concurrencySuite = conformanceSuite('concurrency: check-then-act', (f, opts) => {
  const capped = sharedFixture(opts, {
    policy: (p) => ({ ...p, caps: { ...p.caps, maxMemoriesPerOwner: CAP } }),
  });

  it(`${PARALLEL} parallel puts of one key leave exactly one current value`, async () => {
    const o = f.owner();
    const results = await Promise.allSettled(
      Array.from({ length: PARALLEL }, (_, i) =>
        f.engine.putByKey(
          user,
          o,
          'theme',
          kv(`the preferred colour theme is number ${i} of the palette`),
        ),
      ),
    );
    // Every put is taken: a writer that loses the race decides again.
    expect(rejectionReasons(results)).toEqual([]);
    const versions = await f.store.getByKey(o, 'theme');
    const current = versions.filter((m) => m.supersededBy === null && !m.conflict);
    expect(current).toHaveLength(1);
    expect(versions).toHaveLength(PARALLEL);
    // Each older version names the one that replaced it: one chain, no fork.
    const by = versions.filter((m) => m.supersededBy !== null).map((m) => m.supersededBy);
    expect(new Set(by).size).toBe(PARALLEL - 1);
    const got = await f.engine.getByKey(user, o, 'theme');
    expect(got.current?.id).toBe(current[0]!.id);
  });

  it(`${PARALLEL} parallel writes at the cap never leave the owner above it`, async () => {
    const o = capped.owner();
    for (let i = 0; i < CAP; i++)
      await capped.engine.remember(
        user,
        o,
        fact(`Filler fact number ${i} about the allotment and its crops`),
      );
    const results = await Promise.allSettled(
      Array.from({ length: PARALLEL }, (_, i) =>
        capped.engine.remember(
          user,
          o,
          fact(`Parallel fact number ${i} about the greenhouse tomatoes`),
        ),
      ),
    );
    expect(rejectionReasons(results)).toEqual([]);
    expect(await capped.store.countMemories(o)).toBeLessThanOrEqual(CAP);
  });
});
