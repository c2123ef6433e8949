// The fake embedder must be deterministic and unit-norm, since port tests rely on both.
import { describe, expect, it } from 'vitest';
import { createHashingEmbedder, dot } from '../src/index.ts';

describe('hashing embedder (test fake)', () => {
  it('is deterministic, unit-norm and sized as asked', async () => {
    const e = createHashingEmbedder(32);
    const [a, b, empty] = await e.embed(['Red apples', 'red  APPLES!', ''], 'document');
    expect(e.dimensions).toBe(32);
    expect(e.modelId).toBe('hashing-32');
    expect(a).toEqual(b);
    for (const v of [a!, empty!]) expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 6);
  });

  it('puts texts sharing words closer', async () => {
    const [a, near, far] = await createHashingEmbedder().embed(
      ['the red apple tree', 'a red apple', 'quarterly revenue report'],
      'query',
    );
    expect(dot(a!, near!)).toBeGreaterThan(dot(a!, far!));
  });
});
