// What the scheduled consolidation reads to visit only the owners that
// changed: a write batch makes owners due for a schedule, a pass lists the
// due owners in owner order, page by page, and clears each one in the batch
// that records its job, unless a write made it due again since it was read.
// Only committed batches count. Stores are shared between tests, so most
// tests use schedule names of their own, and those that use the engine's
// look only at their own owners.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { compactJob } from '@keepgraph/core/jobs';
import { type PassDue } from '@keepgraph/core/ports';
import { memoryFixture } from '@keepgraph/core/testing';
import {
  batchOf,
  conformanceSuite,
  expectCode,
  ownersWithJobs,
  pendingJobs,
  toolSays,
  user,
  userEpisode,
} from '../harness.ts';

export const scheduledPassesSuite = conformanceSuite(
  'scheduled passes: owners due since their last pass',
  (f) => {
    /** A fresh owner whose jobs are acknowledged once the suite is done. */
    const jobOwner = ownersWithJobs(f);
    const schedule = () => `schedule-${randomUUID()}`;

    /** Every due owner of `name`, through pages of `limit`. */
    async function allDue(name: string, limit: number): Promise<PassDue[]> {
      const out: PassDue[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await f.store.duePasses(name, { ...(after ? { after } : {}), limit });
        expect(page.length).toBeLessThanOrEqual(limit);
        out.push(...page);
        if (page.length < limit) return out;
        after = page[page.length - 1]!.ownerId;
      }
    }

    /** Whether `ownerId` is due for `name` (the first due owner from just before it). */
    const isDue = async (name: string, ownerId: string) =>
      (await f.store.duePasses(name, { after: ownerId.slice(0, -1), limit: 1 }))[0]?.ownerId ===
      ownerId;

    it('lists the owners a batch made due, per schedule, in owner order, page by page', async () => {
      const [a, b] = [schedule(), schedule()];
      const owners = Array.from({ length: 5 }, () => f.owner());
      await f.store.write(
        batchOf({ due: owners.slice(0, 3).map((ownerId) => ({ schedule: a, ownerId })) }),
      );
      await f.store.write(
        batchOf({ due: owners.slice(2).map((ownerId) => ({ schedule: a, ownerId })) }),
      );
      await f.store.write(batchOf({ due: [{ schedule: b, ownerId: owners[0]! }] }));
      const sorted = [...owners].sort();
      for (const limit of [1, 2, 1000])
        expect((await allDue(a, limit)).map((p) => p.ownerId)).toEqual(sorted);
      const [only] = await allDue(b, 10);
      expect(only).toMatchObject({ schedule: b, ownerId: owners[0] });
      expect(typeof only!.token).toBe('string');
      expect(await allDue(schedule(), 10)).toEqual([]);
    });

    it('clears an owner in the batch that records its job, unless it was made due again after it was read', async () => {
      const name = schedule();
      const [calm, busy] = [jobOwner(), jobOwner()];
      await f.store.write(
        batchOf({ due: [calm, busy].map((ownerId) => ({ schedule: name, ownerId })) }),
      );
      const read = await allDue(name, 10);
      expect(read.map((p) => p.ownerId).sort()).toEqual([calm, busy].sort());
      // A write to `busy` between the pass's read and its clearing batch.
      await f.store.write(batchOf({ due: [{ schedule: name, ownerId: busy }] }));
      const jobs = read.map((p) => compactJob(p.ownerId, 'pass-1'));
      await f.store.write(batchOf({ jobs, passed: read }));
      expect((await allDue(name, 10)).map((p) => p.ownerId)).toEqual([busy]);
      const pending = await pendingJobs(f, calm, busy);
      expect(pending.map((e) => e.job.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    });

    it('changes nothing when the batch fails', async () => {
      const name = schedule();
      const o = jobOwner();
      await f.store.write(batchOf({ due: [{ schedule: name, ownerId: o }] }));
      const read = await allDue(name, 10);
      const m = memoryFixture(o);
      await f.store.write(batchOf({ memories: [{ memory: m, embedding: null }] }));
      // A duplicate memory id: the whole batch is refused, its clearing and its new due owner with it.
      const other = f.owner();
      await expectCode(
        f.store.write(
          batchOf({
            memories: [{ memory: m, embedding: null }],
            jobs: [compactJob(o, 'pass-2')],
            passed: read,
            due: [{ schedule: name, ownerId: other }],
          }),
        ),
        'conflict',
      );
      expect(await allDue(name, 10)).toEqual(read);
    });

    it('refuses a blank schedule, owner or token, and a bad limit', async () => {
      const name = schedule();
      await expectCode(f.store.duePasses(' ', { limit: 10 }), 'invalid_input');
      await expectCode(f.store.duePasses(name, { limit: -1 }), 'invalid_input');
      await expectCode(
        f.store.write(batchOf({ due: [{ schedule: '', ownerId: f.owner() }] })),
        'invalid_input',
      );
      await expectCode(
        f.store.write(batchOf({ due: [{ schedule: name, ownerId: ' ' }] })),
        'owner_required',
      );
      await expectCode(
        f.store.write(batchOf({ passed: [{ schedule: name, ownerId: f.owner(), token: '' }] })),
        'invalid_input',
      );
      expect(await allDue(name, 10)).toEqual([]);
    });

    it('a remembered episode makes its owner due for reflection and compaction, a fact for compaction only; forgetting the owner clears both', async () => {
      const withEpisode = f.owner();
      const withFact = f.owner();
      await userEpisode(f, withEpisode, 'We booked the cabin by the lake for May.');
      await f.engine.remember(
        user,
        withFact,
        toolSays('The cabin by the lake sleeps six people.', { name: 'booking-site' }),
      );
      expect(await isDue('reflect', withEpisode)).toBe(true);
      expect(await isDue('compact', withEpisode)).toBe(true);
      expect(await isDue('reflect', withFact)).toBe(false);
      expect(await isDue('compact', withFact)).toBe(true);

      await f.engine.forgetOwner(user, withEpisode);
      expect(await isDue('reflect', withEpisode)).toBe(false);
      expect(await isDue('compact', withEpisode)).toBe(false);
    });
  },
);
