// A caller's value is checked for its shape before anything walks it (found
// by the HTTP fuzz: a body nested 100,000 levels deep overflowed the call
// stack in the surrogate check and the idempotency fingerprint, a 500).
import { describe, expect, it } from 'vitest';
import { MemoryInputSchema, isKeepGraphError, parseInput } from '../src/index.ts';
import { MAX_INPUT_DEPTH, inputProblem } from '../src/domain/input-shape.ts';

/** `depth` lists, one inside the other, around `inner`. */
function nested(depth: number, inner: unknown = 1): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('the shape of a caller value', () => {
  it(`takes ${MAX_INPUT_DEPTH} levels of nesting, not one more`, () => {
    expect(inputProblem(nested(MAX_INPUT_DEPTH))).toBeNull();
    expect(inputProblem(nested(MAX_INPUT_DEPTH + 1))).toMatchObject({
      kind: 'too_deep',
      path: Array.from({ length: MAX_INPUT_DEPTH }, () => '0').join('.'),
    });
  });

  it('answers for any depth without overflowing the stack', () => {
    const deep = JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)) as unknown;
    expect(inputProblem(deep)?.kind).toBe('too_deep');
  });

  it('names the first lone surrogate in document order', () => {
    expect(inputProblem({ a: 'fine', b: ['ok', 'x\ud800'], c: '\udfff' })).toMatchObject({
      kind: 'lone_surrogate',
      path: 'b.1',
    });
    expect(inputProblem({ emoji: '😀 a pair is fine' })).toBeNull();
  });

  it('parseInput refuses a deep value as invalid_input, with the path', () => {
    const body = { kind: 'fact', text: 'a deep origin', origin: nested(100_000, {}) };
    let thrown: unknown;
    try {
      parseInput(MemoryInputSchema, body);
    } catch (e) {
      thrown = e;
    }
    expect(isKeepGraphError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: 'invalid_input',
      details: { issues: [{ path: expect.stringMatching(/^origin\.0\.0/) }] },
    });
  });
});
