// A question turn lends its score to its reply; nothing else does.
import { describe, expect, it } from 'vitest';
import { memoryFixture } from '../src/testing.ts';
import { asksQuestion, lendScoreToReplies } from '../src/domain/session-replies.ts';
import type { FusedEntry } from '../src/domain/rank.ts';

const entry = (fused: number): FusedEntry => ({ ranks: {}, raw: {}, fused });
const turn = (id: string, text: string, kind: 'episode' | 'summary' = 'episode') =>
  memoryFixture('o', { id, text, kind });

describe('asksQuestion', () => {
  it.each([
    ['How long have you been married?', true],
    ['Did you make it? It looks great', true],
    ['"Really?" she asked', true],
    ['See https://example.com/search?q=cats for more', false],
    ['We got the keys on Friday.', false],
  ])('%s -> %s', (text, expected) => expect(asksQuestion(text)).toBe(expected));
});

describe('lendScoreToReplies', () => {
  const question = turn('q', 'What pet do you have?');
  const statement = turn('s', 'We went camping last week.');
  const summary = turn('x', 'Is this a summary?', 'summary');
  const parents = new Map([question, statement, summary].map((m) => [m.id, m]));

  it("gives a question turn's reply weight x its fused score, and records the lender", () => {
    const fused = new Map([['q', entry(0.03)]]);
    lendScoreToReplies(
      fused,
      parents,
      [{ after: 'q', memory: turn('r', 'A guinea pig, Oscar.') }],
      0.9,
    );
    expect(fused.get('r')!.fused).toBeCloseTo(0.027, 12);
    expect(fused.get('r')!.raw.reply).toBe(0.03);
  });

  it('lends nothing to a reply longer than maxChars: it is found by what it says', () => {
    const fused = new Map([['q', entry(0.03)]]);
    const long = turn('r', `Here is a long answer. ${'It goes on. '.repeat(50)}`);
    lendScoreToReplies(fused, parents, [{ after: 'q', memory: long }], 0.9, 500);
    expect(fused.has('r')).toBe(false);
    lendScoreToReplies(fused, parents, [{ after: 'q', memory: long }], 0.9, 0);
    expect(fused.get('r')!.fused).toBeCloseTo(0.027, 12);
  });

  it('keeps a reply that already scores higher on its own', () => {
    const fused = new Map([
      ['q', entry(0.02)],
      ['r', entry(0.03)],
    ]);
    lendScoreToReplies(fused, parents, [{ after: 'q', memory: turn('r', 'Oscar') }], 0.9);
    expect(fused.get('r')).toEqual(entry(0.03));
  });

  it('lends nothing from a statement, a derived memory, an unknown parent, or at weight 0', () => {
    const fused = new Map([
      ['s', entry(0.03)],
      ['x', entry(0.03)],
      ['q', entry(0.03)],
    ]);
    const next = (after: string, id: string) => ({ after, memory: turn(id, id) });
    lendScoreToReplies(fused, parents, [next('s', 'a'), next('x', 'b'), next('gone', 'c')], 0.9);
    lendScoreToReplies(fused, parents, [next('q', 'd')], 0);
    expect([...fused.keys()]).toEqual(['s', 'x', 'q']);
  });
});
