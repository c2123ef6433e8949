// Invariant 7, deletion reaches everything derived: the inbound DERIVED_FROM
// closure, embeddings, full-text entries, relation edges nobody else asserts,
// orphan entities and session-buffer copies go in one cascade with a receipt;
// verifyForgotten then finds nothing; survivors' summaries are re-derived.
// (Session copies, sessions and whole owners: 07b-deletion-of-sessions-and-owners.ts.)
import { expect, it } from 'vitest';
import { CASCADE_STEP } from '@keepgraph/core';
import {
  atRest,
  conformanceSuite,
  derived,
  expectCode,
  operator,
  pageWithSummary,
  pendingJobs,
  user,
  userEpisode,
  verifyReceipt,
} from '../harness.ts';

export const deletionSuite = conformanceSuite(
  'invariant 7: deletion reaches everything derived',
  (f) => {
    /** The owner's pending rederive jobs, which its cascades recorded. */
    const rederiveJobs = async (o: string) =>
      (await pendingJobs(f, o)).filter((e) => e.job.name === 'rederive');

    it('deleting an episode removes a 3-level derived chain with fan-out 20, its index rows and sole-asserted relations', async () => {
      const o = f.owner();
      const root = await userEpisode(
        f,
        o,
        'Kestrel-7731 feedback: Alex strongly dislikes finance clients after the last project',
      );
      const other = await userEpisode(
        f,
        o,
        'Alex enjoys working with design studios and small agencies',
      );

      // Level 1: 20 claims derived from the root. One asserts a relation alone;
      // another asserts a relation that the surviving episode also asserts.
      const level1: string[] = [];
      for (let i = 0; i < 20; i++) {
        const { memory } = await f.engine.remember(
          user,
          o,
          derived(
            `Kestrel-7731 level one claim ${i}: avoid pitching finance clients to Alex`,
            [root.memory.id],
            {
              kind: 'rule',
              about: [{ name: 'Alex', type: 'person' }],
              relations:
                i === 0
                  ? [
                      {
                        subject: { name: 'Alex', type: 'person' },
                        type: 'PREFERS_AGAINST',
                        object: { name: 'finance clients', type: 'segment' },
                        reason: 'the last project',
                      },
                    ]
                  : i === 1
                    ? [
                        {
                          subject: { name: 'Alex', type: 'person' },
                          type: 'PREFERS',
                          object: { name: 'design studios', type: 'segment' },
                        },
                      ]
                    : [],
            },
          ),
        );
        level1.push(memory.id);
      }
      await f.engine.remember(
        user,
        o,
        derived('Alex prefers design studios', [other.memory.id], {
          kind: 'rule',
          relations: [
            {
              subject: { name: 'Alex', type: 'person' },
              type: 'PREFERS',
              object: { name: 'design studios', type: 'segment' },
            },
          ],
        }),
      );
      // Levels 2 and 3: one chain under each level-1 claim.
      const level2: string[] = [];
      const level3: string[] = [];
      for (const [i, id] of level1.entries()) {
        const l2 = await f.engine.remember(
          user,
          o,
          derived(`Kestrel-7731 level two summary ${i}`, [id]),
        );
        level2.push(l2.memory.id);
        const l3 = await f.engine.remember(
          user,
          o,
          derived(`Kestrel-7731 level three digest ${i}`, [l2.memory.id]),
        );
        level3.push(l3.memory.id);
      }
      // A summary of the root and the surviving episode: deleted, then queued for re-derivation.
      const mixed = await f.engine.remember(
        user,
        o,
        derived('Kestrel-7731 mixed summary of both episodes', [root.memory.id, other.memory.id]),
      );

      const before = await f.store.relations(o);
      expect(before.some((r) => r.type === 'PREFERS_AGAINST')).toBe(true);

      const receipt = await f.engine.forget(user, o, [root.memory.id]);
      const expected = [root.memory.id, ...level1, ...level2, ...level3, mixed.memory.id];
      expect(new Set(receipt.deletedMemoryIds)).toEqual(new Set(expected));
      expect(receipt.embeddingsDeleted).toBe(expected.length);
      expect(receipt.fullTextEntriesDeleted).toBe(expected.length);
      expect(receipt.relationEdgesDeleted).toBe(1);
      expect(receipt.rederive.map((r) => r.id)).toEqual([mixed.memory.id]);
      expect(receipt.rederive[0]!.survivingSourceCount).toBe(1);
      // The store recorded the re-derivation in its outbox, in the cascade's
      // transaction; the engine enqueues nothing itself.
      expect(receipt.rederive[0]!.kind).toBe('summary');
      const rederive = await rederiveJobs(o);
      expect(rederive.map((e) => e.job.payload)).toEqual([
        {
          deletedDerivedId: mixed.memory.id,
          kind: 'summary',
          tags: [],
          survivingSources: [other.memory.id],
        },
      ]);
      await f.store.outboxAck(rederive.map((e) => e.job.id));

      const after = await f.store.relations(o);
      expect(after.some((r) => r.type === 'PREFERS_AGAINST')).toBe(false);
      const prefers = after.find((r) => r.type === 'PREFERS');
      expect(prefers).toBeTruthy();
      expect(prefers!.assertedBy.some((id) => level1.includes(id))).toBe(false);

      const check = await verifyReceipt(f, o, receipt);
      expect(check.traces).toEqual([]);
      expect(check.forgotten).toBe(true);
      const recalled = (
        await f.engine.recall(user, o, 'Kestrel-7731 finance clients', { topK: 50 })
      ).results;
      expect(recalled.length).toBeGreaterThan(0);
      for (const h of recalled) expect(expected).not.toContain(h.memory.id);
      expect((await f.engine.get(user, o, other.memory.id)).id).toBe(other.memory.id);
      const kept = await atRest(f);
      expect(kept('strongly dislikes finance')).toBe(false);
      expect(kept('level three digest')).toBe(false);
    });

    it('deletes a closure wider than one step in steps, with one receipt and the same re-derivations', async () => {
      const o = f.owner();
      const root = await userEpisode(f, o, 'Osprey-5120 the ferry runs at dawn');
      const other = await userEpisode(f, o, 'Osprey-5120 the harbour cafe opens at seven');
      // Fan-in has no limit: more memories grow out of the root than one
      // step of a cascade deletes (CASCADE_STEP), one of them has a memory
      // of its own, and another is also a source of a summary of the
      // surviving episode.
      const wide: string[] = [];
      const width = CASCADE_STEP + 10;
      for (let i = 0; i < width; i += 100) {
        const r = await f.engine.rememberMany(
          user,
          o,
          Array.from({ length: Math.min(100, width - i) }, (_, j) =>
            derived(`Osprey-5120 claim ${i + j} about the dawn ferry`, [root.memory.id], {
              kind: 'rule',
            }),
          ),
        );
        expect(r.failed).toEqual([]);
        wide.push(...r.stored.map((m) => m.id));
      }
      const deep = await f.engine.remember(
        user,
        o,
        derived('Osprey-5120 digest of the first claim', [wide[0]!], { kind: 'rule' }),
      );
      const mixed = await f.engine.remember(
        user,
        o,
        derived('Osprey-5120 summary of the ferry and the cafe', [wide[1]!, other.memory.id]),
      );

      const receipt = await f.engine.forget(user, o, [root.memory.id]);
      const expected = [root.memory.id, ...wide, deep.memory.id, mixed.memory.id];
      expect(receipt.requested).toEqual([root.memory.id]);
      expect(new Set(receipt.deletedMemoryIds)).toEqual(new Set(expected));
      expect(receipt.deletedMemoryIds).toHaveLength(expected.length);
      expect(receipt.embeddingsDeleted).toBe(expected.length);
      // Only the summary keeps a source outside the cascade.
      expect(receipt.rederive).toEqual([
        { id: mixed.memory.id, kind: 'summary', tags: [], survivingSourceCount: 1 },
      ]);
      const jobs = await rederiveJobs(o);
      expect(
        jobs.map((e) => (e.job.payload as { survivingSources: string[] }).survivingSources),
      ).toEqual([[other.memory.id]]);
      await f.store.outboxAck(jobs.map((e) => e.job.id));
      // Each step is audited, and says which it was.
      const deletes = (await f.engine.auditList(operator, { ownerId: o, limit: 1000 })).filter(
        (e) => e.type === 'delete',
      );
      const steps = Math.ceil(expected.length / CASCADE_STEP);
      expect(steps).toBeGreaterThan(1);
      expect(deletes.map((e) => (e.details as { of?: number }).of)).toEqual(
        Array.from({ length: steps }, () => steps),
      );
      expect((await verifyReceipt(f, o, receipt)).traces).toEqual([]);
      expect((await f.engine.get(user, o, other.memory.id)).id).toBe(other.memory.id);
    });

    it('revoking a source removes what came from it and what was derived from that', async () => {
      const o = f.owner();
      const uri = 'https://events.example.com/conf';
      const { web, sum, keep } = await pageWithSummary(f, o, uri);
      const receipt = await f.engine.revokeSource(user, o, { uri });
      expect(new Set(receipt.deletedMemoryIds)).toEqual(new Set([web.id, sum.id]));
      expect((await f.engine.get(user, o, keep.id)).id).toBe(keep.id);
    });

    it('lists each deleted memory once when roots derive from other roots', async () => {
      const o = f.owner();
      const root = await userEpisode(f, o, 'Sam moved to Lisbon in spring');
      const children = [];
      for (let i = 0; i < 20; i++)
        children.push(
          await f.engine.remember(user, o, derived(`Sam fact ${i} about Lisbon`, [root.memory.id])),
        );
      const grandchild = await f.engine.remember(
        user,
        o,
        derived('Sam is settling in', [children[0]!.memory.id, children[1]!.memory.id]),
      );
      const others = [];
      for (let i = 0; i < 29; i++)
        others.push(await userEpisode(f, o, `Sam unrelated note number ${i}`));
      // 50 roots (the sweeper's batches are like this): the children are roots
      // and also descendants of the root; the grandchild of three of them.
      const roots = [root, ...children, ...others].map((m) => m.memory.id);
      const receipt = await f.engine.forget(user, o, roots);
      const all = [...roots, grandchild.memory.id];
      expect([...receipt.deletedMemoryIds].sort()).toEqual([...all].sort());
      expect(receipt.embeddingsDeleted).toBe(all.length);
      expect(receipt.fullTextEntriesDeleted).toBe(all.length);
    });

    it('deleting an unknown id is not_found and changes nothing', async () => {
      const o = f.owner();
      const m = await userEpisode(f, o, 'Casey runs a half marathon every October');
      await expectCode(f.engine.forget(user, o, ['no-such-id']), 'not_found');
      expect(await f.store.countMemories(o)).toBe(1);
      expect((await f.engine.get(user, o, m.memory.id)).id).toBe(m.memory.id);
    });
  },
);
