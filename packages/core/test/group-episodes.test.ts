import { describe, expect, it } from 'vitest';
import { clustersOf, groupBySimilarity, similarityGraph } from '../src/jobs/index.ts';
import { randomUnitVector } from '../src/testing.ts';
import { seededRandom } from '../src/domain/seeded-random.ts';

const near = (base: Float32Array, noise: number, random: () => number) => {
  const v = Float32Array.from(base, (x) => x + (random() * 2 - 1) * noise);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

describe('similarity grouping', () => {
  const random = seededRandom(7);
  const a = randomUnitVector(32, random);
  const b = randomUnitVector(32, random);
  const items = [
    ...Array.from({ length: 4 }, (_, i) => ({ id: `a${i}`, vector: near(a, 0.05, random) })),
    ...Array.from({ length: 3 }, (_, i) => ({ id: `b${i}`, vector: near(b, 0.05, random) })),
    { id: 'alone', vector: randomUnitVector(32, random) },
  ];

  it('finds near-duplicate clusters as connected components of at least the minimum size', async () => {
    expect(await clustersOf(items, 0.9, 3)).toEqual([
      ['a0', 'a1', 'a2', 'a3'],
      ['b0', 'b1', 'b2'],
    ]);
    expect(await clustersOf(items, 0.9, 4)).toEqual([['a0', 'a1', 'a2', 'a3']]);
  });

  it('groups every item, singletons included, the same way every time', async () => {
    const groups = await groupBySimilarity(items, 0.5);
    expect(groups.flat().sort()).toEqual(items.map((i) => i.id).sort());
    expect(groups).toContainEqual(['alone']);
    expect(await groupBySimilarity(items, 0.5)).toEqual(groups);
  });

  it('yields to the event loop while comparing all pairs', async () => {
    const many = Array.from({ length: 300 }, (_, i) => ({
      id: `m${i}`,
      vector: randomUnitVector(64, random),
    }));
    let ticked = false;
    setImmediate(() => (ticked = true));
    const building = similarityGraph(many, 0.99).then(() => ticked);
    expect(await building).toBe(true);
  });
});
