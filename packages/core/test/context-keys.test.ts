// Context summaries: passages of consecutive turns of one session, and the
// summary of a group as a derived write (a key to its turns).
import { describe, expect, it } from 'vitest';
import { CONTEXT_MAX_CHARS, contextSummaryOf, passagesOf } from '../src/jobs/context-keys.ts';
import { CONTEXT_TAG, isContextSummary } from '../src/domain/derived-kinds.ts';
import type { Memory } from '../src/domain/record.ts';
import { FIXTURE_T0, memoryFixture } from '../src/testing.ts';

const ep = (id: string, sessionId: string, text = `turn ${id}`, speaker?: string): Memory =>
  memoryFixture('o', {
    id,
    kind: 'episode',
    text,
    origin: { sessionId, observedAt: FIXTURE_T0, writtenBy: 'w', ...(speaker ? { speaker } : {}) },
  });

describe('passagesOf', () => {
  it('cuts at a change of session and at the window size, keeping write order', () => {
    const eps = [
      ep('a', 's1'),
      ep('b', 's1'),
      ep('c', 's1'),
      ep('d', 's2'),
      ep('e', 's2'),
      ep('f', 's1'),
    ];
    expect(passagesOf(eps, 2).map((p) => p.map((e) => e.id))).toEqual([
      ['a', 'b'],
      ['c'],
      ['d', 'e'],
      ['f'],
    ]);
    expect(passagesOf(eps, 10).map((p) => p.map((e) => e.id))).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
      ['f'],
    ]);
    expect(passagesOf([], 10)).toEqual([]);
  });
});

describe('contextSummaryOf', () => {
  it('writes the turns with their speakers, derived from each, with a deterministic id and the first turn as key', () => {
    const group = [ep('x2', 's', 'I went camping.', 'Mel'), ep('x1', 's', 'Where to?', 'Caro')];
    const w = contextSummaryOf('o', group);
    expect(w.input).toMatchObject({
      kind: 'summary',
      key: 'context:x2',
      text: 'Mel: I went camping.\nCaro: Where to?',
      authority: 'agent_inferred',
      derivedFrom: ['x2', 'x1'],
      tags: ['reflection', CONTEXT_TAG],
    });
    expect(isContextSummary({ kind: w.input.kind, tags: w.input.tags })).toBe(true);
    // The same members in another order name the same derivation.
    expect(contextSummaryOf('o', [...group].reverse()).idParts).toEqual(w.idParts);
  });

  it('stops adding turns at CONTEXT_MAX_CHARS', () => {
    const long = 'word '.repeat(500).trim();
    const group = Array.from({ length: 5 }, (_, i) => ep(`l${i}`, 's', long));
    const w = contextSummaryOf('o', group);
    expect(w.input.text.length).toBeLessThanOrEqual(CONTEXT_MAX_CHARS);
    expect(w.input.derivedFrom).toHaveLength(5);
  });
});
