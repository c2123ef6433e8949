// Invariant 7, deletion reaches everything derived: the inbound DERIVED_FROM
// closure, embeddings, full-text entries, relation edges nobody else asserts,
// orphan entities and session-buffer copies go in one cascade with a receipt;
// verifyForgotten then finds nothing; survivors' summaries are re-derived.
import { describe, expect, it } from 'vitest';
import { CASCADE_STEP } from '@keepgraph/core';
import {
  derived,
  episode,
  expectCode,
  sharedFixture,
  operator,
  tool,
  user,
  type ConformanceOptions,
} from '../harness.ts';

export function deletionSuite(opts: ConformanceOptions): void {
  describe('invariant 7: deletion reaches everything derived', () => {
    const f = sharedFixture(opts);

    it('deleting an episode removes a 3-level derived chain with fan-out 20, its index rows and sole-asserted relations', async () => {
      const o = f.owner();
      const root = await f.engine.remember(
        user,
        o,
        episode(
          'Kestrel-7731 feedback: Alex strongly dislikes finance clients after the last project',
        ),
      );
      const other = await f.engine.remember(
        user,
        o,
        episode('Alex enjoys working with design studios and small agencies'),
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

      const before = await f.engine.deps.store.relations(o);
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
      const rederive = (await f.engine.deps.store.outboxPending(100_000)).filter(
        (e) => e.job.ownerId === o && e.job.name === 'rederive',
      );
      expect(rederive.map((e) => e.job.payload)).toEqual([
        {
          deletedDerivedId: mixed.memory.id,
          kind: 'summary',
          tags: [],
          survivingSources: [other.memory.id],
        },
      ]);
      await f.engine.deps.store.outboxAck(rederive.map((e) => e.job.id));

      const after = await f.engine.deps.store.relations(o);
      expect(after.some((r) => r.type === 'PREFERS_AGAINST')).toBe(false);
      const prefers = after.find((r) => r.type === 'PREFERS');
      expect(prefers).toBeTruthy();
      expect(prefers!.assertedBy.some((id) => level1.includes(id))).toBe(false);

      const check = await f.engine.verifyForgotten(user, o, {
        ids: receipt.deletedMemoryIds,
        contentHashes: receipt.deletedContentHashes,
      });
      expect(check.traces).toEqual([]);
      expect(check.forgotten).toBe(true);
      const recalled = (
        await f.engine.recall(user, o, 'Kestrel-7731 finance clients', { topK: 50 })
      ).results;
      expect(recalled.length).toBeGreaterThan(0);
      for (const h of recalled) expect(expected).not.toContain(h.memory.id);
      expect((await f.engine.get(user, o, other.memory.id)).id).toBe(other.memory.id);
      const raw = await f.sut.rawContent();
      expect(raw.includes(Buffer.from('strongly dislikes finance'))).toBe(false);
      expect(raw.includes(Buffer.from('level three digest'))).toBe(false);
    });

    it('deletes a closure wider than one step in steps, with one receipt and the same re-derivations', async () => {
      const o = f.owner();
      const root = await f.engine.remember(user, o, episode('Osprey-5120 the ferry runs at dawn'));
      const other = await f.engine.remember(
        user,
        o,
        episode('Osprey-5120 the harbour cafe opens at seven'),
      );
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
      const jobs = (await f.engine.deps.store.outboxPending(100_000)).filter(
        (e) => e.job.ownerId === o && e.job.name === 'rederive',
      );
      expect(
        jobs.map((e) => (e.job.payload as { survivingSources: string[] }).survivingSources),
      ).toEqual([[other.memory.id]]);
      await f.engine.deps.store.outboxAck(jobs.map((e) => e.job.id));
      // Each step is audited, and says which it was.
      const deletes = (await f.engine.auditList(operator, { ownerId: o, limit: 1000 })).filter(
        (e) => e.type === 'delete',
      );
      const steps = Math.ceil(expected.length / CASCADE_STEP);
      expect(steps).toBeGreaterThan(1);
      expect(deletes.map((e) => (e.details as { of?: number }).of)).toEqual(
        Array.from({ length: steps }, () => steps),
      );
      const check = await f.engine.verifyForgotten(user, o, {
        ids: receipt.deletedMemoryIds,
        contentHashes: receipt.deletedContentHashes,
      });
      expect(check.traces).toEqual([]);
      expect((await f.engine.get(user, o, other.memory.id)).id).toBe(other.memory.id);
    });

    it('deletes the session-buffer copy of a forgotten episode', async () => {
      const o = f.owner();
      const r = await f.engine.sessionAppend(user, o, 'sess-1', {
        messages: [
          { role: 'user', text: 'I will be travelling to Osaka in the first week of May' },
          { role: 'assistant', text: 'Noted, I will keep that in mind.' },
        ],
        remember: true,
      });
      expect(r.rememberedIds).toHaveLength(1);
      expect((await f.engine.sessionContext(user, o, 'sess-1')).session).toHaveLength(2);
      const receipt = await f.engine.forget(user, o, r.rememberedIds);
      expect(receipt.sessionMessagesDeleted).toBe(1);
      const ctx = await f.engine.sessionContext(user, o, 'sess-1');
      expect(ctx.session.map((m) => m.role)).toEqual(['assistant']);
      expect((await f.engine.verifyForgotten(user, o, { ids: r.rememberedIds })).forgotten).toBe(
        true,
      );
    });

    it('forgetting an owner removes everything of that owner and nothing of another', async () => {
      const a = f.owner();
      const b = f.owner();
      const ea = await f.engine.remember(user, a, episode('Jordan collects vintage film cameras'));
      await f.engine.remember(user, a, derived('Jordan likes cameras', [ea.memory.id]));
      const eb = await f.engine.remember(user, b, episode('Jordan collects vintage film cameras'));
      const receipt = await f.engine.forgetOwner(user, a);
      expect(receipt.deletedMemoryIds).toHaveLength(2);
      expect(await f.engine.deps.store.countMemories(a)).toBe(0);
      expect((await f.engine.get(user, b, eb.memory.id)).text).toBe(
        'Jordan collects vintage film cameras',
      );
      await expectCode(f.engine.forgetOwner(user, a), 'not_found');
    });

    it('forgetting an owner takes its session buffer too, and works for an owner who has only sessions', async () => {
      const a = f.owner();
      const b = f.owner();
      const words = (o: string) => `Kestrel-${o.slice(-6)} is my locker code word`;
      await f.engine.remember(user, a, episode('Jordan keeps a kayak at the marina'));
      for (const o of [a, b])
        await f.engine.sessionAppend(user, o, 'sess-1', {
          messages: [
            { role: 'user', text: words(o) },
            { role: 'assistant', text: 'Understood, I will remember the marina.' },
          ],
        });
      const onlySessions = f.owner();
      await f.engine.sessionAppend(user, onlySessions, 'sess-2', {
        messages: [{ role: 'user', text: words(onlySessions) }],
      });

      const receipt = await f.engine.forgetOwner(user, a);
      expect(receipt.deletedMemoryIds).toHaveLength(1);
      expect(receipt.sessionMessagesDeleted).toBe(2);
      expect((await f.engine.sessionContext(user, a, 'sess-1')).session).toEqual([]);
      // Another owner's session is untouched.
      expect((await f.engine.sessionContext(user, b, 'sess-1')).session).toHaveLength(2);

      const only = await f.engine.forgetOwner(user, onlySessions);
      expect(only.deletedMemoryIds).toEqual([]);
      expect(only.sessionMessagesDeleted).toBe(1);
      await expectCode(f.engine.forgetOwner(user, onlySessions), 'not_found');

      const raw = await f.sut.rawContent();
      expect(raw.includes(Buffer.from(words(a)))).toBe(false);
      expect(raw.includes(Buffer.from(words(onlySessions)))).toBe(false);
      expect(raw.includes(Buffer.from(words(b)))).toBe(true);
    });

    it('forgetting an owner leaves none of its texts, session words, key names or read-log rows in the raw store', async () => {
      const o = f.owner();
      const tag = o.slice(-8);
      const key = `locker-key-${tag}`;
      const texts = [
        `Quillon-${tag} is the name of my sailing dinghy`,
        `Ravelin-${tag} is where the dinghy is kept`,
      ];
      const session = `voyage-${tag}`;
      const said = `Saltmarsh-${tag} is the harbour we leave from`;
      for (const t of texts) await f.engine.remember(user, o, episode(t));
      await f.engine.putByKey(user, o, key, {
        text: `Bastion-${tag} locker is number forty`,
        origin: { sessionId: 'kv' },
      });
      await f.engine.sessionAppend(user, o, session, { messages: [{ role: 'user', text: said }] });
      await f.engine.recall(user, o, 'where is the dinghy kept', { sessionId: session });
      // (Pending outbox jobs going with the owner: the outbox suite.)
      await f.engine.forgetOwner(user, o);
      const raw = await f.sut.rawContent();
      // The owner id stays in the audit log, by design: it is whose deletion it records.
      for (const needle of [...texts, key, `Bastion-${tag}`, session, said])
        expect(raw.includes(Buffer.from(needle)), needle).toBe(false);
    });

    it('deleting a memory deletes its session-buffer copies, linked or appended apart with the same text', async () => {
      const o = f.owner();
      const tag = o.slice(-8);
      const text = `Mizzen-${tag} is the code word for the boathouse`;
      const other = `Jib-${tag} is the name of the other boat`;
      await f.engine.sessionAppend(user, o, 's-a', {
        messages: [
          { role: 'user', text },
          { role: 'user', text: other },
        ],
      });
      const { memory } = await f.engine.remember(user, o, episode(text));
      const receipt = await f.engine.forget(user, o, [memory.id]);
      expect(receipt.sessionMessagesDeleted).toBe(1);
      expect((await f.engine.sessionContext(user, o, 's-a')).session.map((m) => m.text)).toEqual([
        other,
      ]);
      expect(
        (
          await f.engine.verifyForgotten(user, o, {
            ids: [memory.id],
            contentHashes: [memory.contentHash],
          })
        ).forgotten,
      ).toBe(true);
      const raw = await f.sut.rawContent();
      expect(raw.includes(Buffer.from(`Mizzen-${tag}`))).toBe(false);
      expect(raw.includes(Buffer.from(other))).toBe(true);
    });

    it('deletes a session, or one message of it by seq, and says not_found for what is not there', async () => {
      const o = f.owner();
      const tag = o.slice(-8);
      await f.engine.sessionAppend(user, o, 's-keep', {
        messages: [
          { role: 'user', text: `Halyard-${tag} first message` },
          { role: 'assistant', text: `Halyard-${tag} second message` },
        ],
      });
      await f.engine.sessionAppend(user, o, 's-drop', {
        messages: [{ role: 'user', text: `Gunwale-${tag} goes entirely` }],
      });
      const before = (await f.engine.sessionContext(user, o, 's-keep')).session;
      const one = await f.engine.deleteSession(user, o, 's-keep', String(before[0]!.seq));
      expect(one).toMatchObject({ seq: before[0]!.seq, sessionMessagesDeleted: 1 });
      expect((await f.engine.sessionContext(user, o, 's-keep')).session.map((m) => m.seq)).toEqual([
        before[1]!.seq,
      ]);
      expect((await f.engine.deleteSession(user, o, 's-drop')).sessionMessagesDeleted).toBe(1);
      await expectCode(f.engine.deleteSession(user, o, 's-drop'), 'not_found');
      await expectCode(
        f.engine.deleteSession(user, o, 's-keep', String(before[0]!.seq)),
        'not_found',
      );
      await expectCode(f.engine.deleteSession(user, o, 's-keep', '1.5'), 'invalid_input');
      await expectCode(f.engine.deleteSession(tool, o, 's-keep'), 'forbidden_role');
      const raw = await f.sut.rawContent();
      expect(raw.includes(Buffer.from(`Halyard-${tag} first`))).toBe(false);
      expect(raw.includes(Buffer.from(`Gunwale-${tag}`))).toBe(false);
      expect(raw.includes(Buffer.from('s-drop'))).toBe(false);
      const events = await f.engine.auditList(operator, { ownerId: o });
      expect(events.filter((e) => e.type === 'delete').map((e) => e.reason)).toEqual([
        'session_message',
        'session',
      ]);
    });

    it('revoking a source removes what came from it and what was derived from that', async () => {
      const o = f.owner();
      const web = await f.engine.remember(user, o, {
        kind: 'fact',
        text: 'The conference venue changed to Hall B according to the event page',
        authority: 'third_party',
        origin: { source: { kind: 'url', uri: 'https://events.example.com/conf' } },
      });
      const sum = await f.engine.remember(
        user,
        o,
        derived('Conference is in Hall B', [web.memory.id]),
      );
      const keep = await f.engine.remember(
        user,
        o,
        episode('I booked the hotel next to the venue myself'),
      );
      const receipt = await f.engine.revokeSource(user, o, {
        uri: 'https://events.example.com/conf',
      });
      expect(new Set(receipt.deletedMemoryIds)).toEqual(new Set([web.memory.id, sum.memory.id]));
      expect((await f.engine.get(user, o, keep.memory.id)).id).toBe(keep.memory.id);
    });

    it('lists each deleted memory once when roots derive from other roots', async () => {
      const o = f.owner();
      const root = await f.engine.remember(user, o, episode('Sam moved to Lisbon in spring'));
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
        others.push(await f.engine.remember(user, o, episode(`Sam unrelated note number ${i}`)));
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
      const m = await f.engine.remember(
        user,
        o,
        episode('Casey runs a half marathon every October'),
      );
      await expectCode(f.engine.forget(user, o, ['no-such-id']), 'not_found');
      expect(await f.engine.deps.store.countMemories(o)).toBe(1);
      expect((await f.engine.get(user, o, m.memory.id)).id).toBe(m.memory.id);
    });
  });
}
