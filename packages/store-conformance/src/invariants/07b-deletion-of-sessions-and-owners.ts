// Invariant 7 for what is not derived from a memory: its copies in the
// session buffer, a session or one message of it deleted on its own, and a
// whole owner forgotten, memories, sessions, keys and read-log rows alike,
// with nothing of it left in the raw store and nothing of another owner lost.
import { expect, it } from 'vitest';
import {
  atRest,
  conformanceSuite,
  derived,
  expectCode,
  kv,
  operator,
  tool,
  user,
  userEpisode,
} from '../harness.ts';

export const sessionAndOwnerDeletionSuite = conformanceSuite(
  'invariant 7: deletion of session copies, sessions and owners',
  (f) => {
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
      const ea = await userEpisode(f, a, 'Jordan collects vintage film cameras');
      await f.engine.remember(user, a, derived('Jordan likes cameras', [ea.memory.id]));
      const eb = await userEpisode(f, b, 'Jordan collects vintage film cameras');
      const receipt = await f.engine.forgetOwner(user, a);
      expect(receipt.deletedMemoryIds).toHaveLength(2);
      expect(await f.store.countMemories(a)).toBe(0);
      expect((await f.engine.get(user, b, eb.memory.id)).text).toBe(
        'Jordan collects vintage film cameras',
      );
      await expectCode(f.engine.forgetOwner(user, a), 'not_found');
    });

    it('forgetting an owner takes its session buffer too, and works for an owner who has only sessions', async () => {
      const a = f.owner();
      const b = f.owner();
      const words = (o: string) => `Kestrel-${o.slice(-6)} is my locker code word`;
      await userEpisode(f, a, 'Jordan keeps a kayak at the marina');
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

      const kept = await atRest(f);
      expect(kept(words(a))).toBe(false);
      expect(kept(words(onlySessions))).toBe(false);
      expect(kept(words(b))).toBe(true);
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
      for (const t of texts) await userEpisode(f, o, t);
      await f.engine.putByKey(user, o, key, kv(`Bastion-${tag} locker is number forty`));
      await f.engine.sessionAppend(user, o, session, { messages: [{ role: 'user', text: said }] });
      await f.engine.recall(user, o, 'where is the dinghy kept', { sessionId: session });
      // (Pending outbox jobs going with the owner: the outbox suite.)
      await f.engine.forgetOwner(user, o);
      const kept = await atRest(f);
      // The owner id stays in the audit log, by design: it is whose deletion it records.
      for (const needle of [...texts, key, `Bastion-${tag}`, session, said])
        expect(kept(needle), needle).toBe(false);
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
      const { memory } = await userEpisode(f, o, text);
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
      const kept = await atRest(f);
      expect(kept(`Mizzen-${tag}`)).toBe(false);
      expect(kept(other)).toBe(true);
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
      const kept = await atRest(f);
      expect(kept(`Halyard-${tag} first`)).toBe(false);
      expect(kept(`Gunwale-${tag}`)).toBe(false);
      expect(kept('s-drop')).toBe(false);
      const events = await f.engine.auditList(operator, { ownerId: o });
      expect(events.filter((e) => e.type === 'delete').map((e) => e.reason)).toEqual([
        'session_message',
        'session',
      ]);
    });
  },
);
