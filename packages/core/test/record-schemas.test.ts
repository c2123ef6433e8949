// The record schemas' refusals of ids and text no store should keep: ids
// of "." or ".." (URL parsers drop such a path segment, so the call would
// reach another route) and control characters other than tab and line
// breaks in stored text. Both stores see only what these let through (the
// conformance suite's input-hygiene invariant checks it on each).
import { describe, expect, it } from 'vitest';
import {
  MemoryInputSchema,
  OwnerIdSchema,
  STORED_TEXT_CONTROLS,
  identifierSchema,
  isKeepGraphError,
  parseInput,
} from '../src/index.ts';
import { CorrectionSchema } from '../src/use-cases/correct-args.ts';
import { CreateKeySchema } from '../src/use-cases/keys-args.ts';
import { SessionAppendSchema } from '../src/use-cases/session-args.ts';

function code(schema: Parameters<typeof parseInput>[0], value: unknown): string | null {
  try {
    parseInput(schema, value);
    return null;
  } catch (e) {
    if (isKeepGraphError(e)) return e.code;
    throw e;
  }
}

const memory = (over: Record<string, unknown> = {}) => ({
  kind: 'fact',
  text: 'The shed roof needs new felt',
  origin: { sessionId: 's' },
  ...over,
});

describe('identifiers', () => {
  it('refuse "." and "..", and nothing else made of or holding dots', () => {
    for (const s of [OwnerIdSchema, identifierSchema('session id')]) {
      expect(s.safeParse('.').success).toBe(false);
      expect(s.safeParse('..').success).toBe(false);
      for (const ok of ['...', '.hidden', 'a..b', 'v1.2', '..a', '%2E%2E'])
        expect(s.safeParse(ok).success, ok).toBe(true);
    }
    expect(code(MemoryInputSchema, memory({ key: '..' }))).toBe('invalid_input');
    expect(code(MemoryInputSchema, memory({ origin: { sessionId: '.' } }))).toBe('invalid_input');
    expect(code(CreateKeySchema, { name: 'k', role: 'user', owners: ['..'] })).toBe(
      'invalid_input',
    );
  });
});

describe('stored text', () => {
  const refused = [
    '\u0000',
    '\u0001',
    '\u0008',
    '\u000b',
    '\u000c',
    '\u000e',
    '\u001b',
    '\u001f',
    '\u007f',
  ];
  const kept = ['\t', '\n', '\r', '\u0085', '\u00a0', 'é', '🙂'];

  it('holds no C0 control but tab, line feed and carriage return, and no DEL', () => {
    for (let cp = 0; cp < 0x20; cp++)
      expect(STORED_TEXT_CONTROLS.test(String.fromCharCode(cp)), cp.toString(16)).toBe(
        ![0x09, 0x0a, 0x0d].includes(cp),
      );
    expect(STORED_TEXT_CONTROLS.test('\u007f')).toBe(true);
    for (const c of kept) expect(STORED_TEXT_CONTROLS.test(c), JSON.stringify(c)).toBe(false);
  });

  it('is refused with invalid_input in every stored field of a memory', () => {
    for (const c of refused) {
      const bad = `roof${c}felt`;
      const variants = [
        memory({ text: `The shed ${bad} needs work` }),
        memory({ tags: [bad] }),
        memory({ origin: { sessionId: 's', turn: bad } }),
        memory({ origin: { sessionId: 's', speaker: bad } }),
        memory({ origin: { tool: { name: bad, callId: 'c1' } } }),
        memory({ origin: { source: { kind: 'url', uri: `https://example.com/${bad}` } } }),
        memory({ origin: { extractor: { name: bad, version: '1' } } }),
        memory({ about: [{ name: bad, type: 'thing' }] }),
        memory({ about: [{ name: 'shed', type: bad }] }),
        memory({
          relations: [
            { subject: { name: 'Ann' }, type: 'PREFERS', object: { name: 'felt' }, reason: bad },
          ],
        }),
      ];
      for (const v of variants)
        expect(code(MemoryInputSchema, v), JSON.stringify(v)).toBe('invalid_input');
      expect(code(SessionAppendSchema, { messages: [{ role: 'user', text: bad }] })).toBe(
        'invalid_input',
      );
      expect(code(CorrectionSchema, { text: bad, reason: 'incorrect' })).toBe('invalid_input');
      expect(code(CorrectionSchema, { text: 'fine', reason: 'other', tags: [bad] })).toBe(
        'invalid_input',
      );
      expect(code(CreateKeySchema, { name: bad, role: 'user', owners: ['o'] })).toBe(
        'invalid_input',
      );
    }
  });

  it('keeps tab, line breaks and other text as sent', () => {
    const text = 'Shed:\tfelt roof\r\nDoor: new hinges\u0085Élève 🙂';
    expect(parseInput(MemoryInputSchema, memory({ text })).text).toBe(text);
  });
});
