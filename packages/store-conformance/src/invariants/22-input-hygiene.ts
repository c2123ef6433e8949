// Input that no store may keep, refused by core's schemas before a store is
// reached (invariant 12, nothing refused is kept): ids of `.` or `..`, which
// URL parsers drop from a path so that a call meant for them reaches
// another route, and control characters other than tab and line breaks in
// stored text (NUL ends a string for C-based readers; ESC and the like
// rewrite the terminal the CLI prints text to).
import { expect, it } from 'vitest';
import {
  atRest,
  conformanceSuite,
  expectCode,
  fact,
  kv,
  operator,
  tool,
  user,
} from '../harness.ts';

export const inputHygieneSuite = conformanceSuite(
  'refused input: dot ids and control characters',
  (f) => {
    const note = (text = 'The shed roof needs new felt before winter') => fact(text);
    const said = { messages: [{ role: 'user' as const, text: 'the shed roof needs new felt' }] };

    it('refuses "." and ".." as owner, session, memory, key and api key ids with invalid_input, and stores nothing', async () => {
      const o = f.owner();
      for (const dots of ['.', '..']) {
        await expectCode(f.engine.remember(user, dots, note()), 'invalid_input');
        await expectCode(f.engine.sessionAppend(user, dots, 's', said), 'invalid_input');
        await expectCode(f.engine.sessionAppend(user, o, dots, said), 'invalid_input');
        await expectCode(f.engine.readSession(user, o, dots), 'invalid_input');
        await expectCode(f.engine.deleteSession(user, o, dots), 'invalid_input');
        await expectCode(f.engine.forgetSession(user, o, dots, { dryRun: true }), 'invalid_input');
        await expectCode(
          f.engine.remember(user, o, { ...note(), origin: { sessionId: dots } }),
          'invalid_input',
        );
        await expectCode(
          f.engine.putByKey(user, o, dots, kv('Seat preference: window', 'S1')),
          'invalid_input',
        );
        await expectCode(f.engine.remember(user, o, { ...note(), key: dots }), 'invalid_input');
        await expectCode(f.engine.getByKey(user, o, dots), 'invalid_input');
        await expectCode(f.engine.get(user, o, dots), 'invalid_input');
        await expectCode(f.engine.forget(user, o, [dots]), 'invalid_input');
        await expectCode(f.engine.forgetOwner(operator, dots), 'invalid_input');
        await expectCode(f.engine.revokeKey(operator, dots), 'invalid_input');
        await expectCode(
          f.engine.createKey(operator, { name: 'dots', role: 'user', owners: [dots] }),
          'invalid_input',
        );
      }
      expect(await f.store.countMemories(o)).toBe(0);
      for (const dots of ['.', '..']) expect(await f.store.countMemories(dots)).toBe(0);
      expect((await f.engine.listSessions(user, o)).sessions).toEqual([]);
      // Dots inside an id are fine: only a whole segment of dots is lost to URL parsing.
      const kept = await f.engine.remember(user, o, {
        ...note(),
        key: '...',
        origin: { sessionId: 'a..b' },
      });
      expect(kept.memory.key).toBe('...');
      await f.engine.sessionAppend(user, o, '.hidden', said);
      expect((await f.engine.readSession(user, o, '.hidden')).messages).toHaveLength(1);
    });

    const controls: [string, string][] = [
      ['NUL', '\u0000'],
      ['ESC', '\u001b[2K'],
      ['backspace', '\u0008'],
      ['vertical tab', '\u000b'],
      ['form feed', '\u000c'],
      ['DEL', '\u007f'],
    ];
    for (const [name, c] of controls) {
      it(`refuses ${name} in memory text, tags, origin, entities, corrections, session messages and key names with invalid_input, and stores nothing`, async () => {
        const o = f.owner();
        const text = `The shed roof${c} needs new felt before winter`;
        const writes: (() => Promise<unknown>)[] = [
          () => f.engine.remember(user, o, note(text)),
          () => f.engine.remember(user, o, { ...note(), tags: ['garden', `sh${c}ed`] }),
          () =>
            f.engine.remember(user, o, {
              ...note(),
              origin: { sessionId: 'S1', speaker: `An${c}n` },
            }),
          () => f.engine.remember(tool, o, { ...note(), origin: { tool: { name: `cr${c}m` } } }),
          () =>
            f.engine.remember(user, o, {
              ...note(),
              about: [{ name: `the ${c}shed`, type: 'thing' }],
            }),
          () =>
            f.engine.remember(user, o, {
              ...note(),
              relations: [
                {
                  subject: { name: 'Ann' },
                  type: 'PREFERS',
                  object: { name: 'felt' },
                  reason: `said ${c}so`,
                },
              ],
            }),
          () => f.engine.putByKey(user, o, 'roof', kv(text, 'S1')),
          () => f.engine.sessionAppend(user, o, 's', { messages: [{ role: 'user', text }] }),
        ];
        for (const w of writes) await expectCode(w(), 'invalid_input');
        // A batch refuses the item alone.
        const batch = await f.engine.rememberMany(user, o, [note(text)]);
        expect(batch).toMatchObject({ stored: [], failed: [{ index: 0, code: 'invalid_input' }] });
        expect(await f.store.countMemories(o)).toBe(0);
        expect((await f.engine.listSessions(user, o)).sessions).toEqual([]);

        const { memory } = await f.engine.remember(user, o, note());
        await expectCode(
          f.engine.correct(user, o, memory.id, { text, reason: 'incorrect' }),
          'invalid_input',
        );
        await expectCode(
          f.engine.correct(user, o, memory.id, {
            text: 'The shed roof needs new tiles',
            reason: 'incorrect',
            tags: [`r${c}x`],
          }),
          'invalid_input',
        );
        expect((await f.engine.get(user, o, memory.id)).text).toBe(memory.text);
        expect(await f.store.countMemories(o)).toBe(1);
        await expectCode(
          f.engine.createKey(operator, { name: `roof${c}key`, role: 'user', owners: [o] }),
          'invalid_input',
        );

        const kept = await atRest(f);
        expect(kept(`roof${c} needs`)).toBe(false);
      });
    }

    it('keeps tab, line feed and carriage return, and other text as sent', async () => {
      const o = f.owner();
      const text = 'Shed:\tfelt roof\r\nDoor: new hinges\nÉlève 日本 🙂';
      const { memory } = await f.engine.remember(user, o, note(text));
      expect(memory.text).toBe(text);
      await f.engine.sessionAppend(user, o, 's', {
        messages: [{ role: 'user', text: 'line one\nline\ttwo' }],
      });
      expect((await f.engine.readSession(user, o, 's')).messages[0]!.text).toBe(
        'line one\nline\ttwo',
      );
    });
  },
);
