// FlatVectorIndex on its own: recall@10 against an exact scan when it has
// to choose candidates, the validity filter, and removal that leaves no
// byte of the removed vector in its arrays.
import { describe, expect, it } from 'vitest';
import { FlatVectorIndex, type IndexEntry } from '../src/index.ts';
import { MIN_CANDIDATES } from '../src/vector-index/flat-index.ts';

/** A seeded generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A sampler of unit vectors in clusters around `centres` random
 * directions, like embeddings of related texts; queries come from the same
 * clusters as the data.
 */
function clusters(dim: number, centres: number, r: () => number) {
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const cs = Array.from({ length: centres }, () => Float32Array.from({ length: dim }, gauss));
  return (n: number): Float32Array[] =>
    Array.from({ length: n }, () => {
      const c = cs[Math.floor(r() * centres)]!;
      const v = Float32Array.from(c, (x) => x + 0.9 * gauss());
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    });
}

const entry = (
  id: string,
  vector: Float32Array,
  expiresMs = 1e15,
  validFromMs = 0,
): IndexEntry => ({
  id,
  vector,
  expiresMs,
  validFromMs,
});

function exactTop(vectors: Float32Array[], q: Float32Array, k: number): number[] {
  const dot = (v: Float32Array) => v.reduce((s, x, j) => s + x * q[j]!, 0);
  return vectors
    .map((v, i) => [i, dot(v)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([i]) => i);
}

describe('FlatVectorIndex', () => {
  it('finds at least 98% of the exact top 10 when it must pick candidates', () => {
    const r = rng(11);
    const dim = 384;
    const sample = clusters(dim, 40, r);
    const vectors = sample(MIN_CANDIDATES * 8);
    const index = FlatVectorIndex.build(
      dim,
      vectors.map((v, i) => entry(`m${i}`, v)),
    );
    let found = 0;
    const queries = sample(50);
    for (const q of queries) {
      const got = new Set(index.search(q, 10, 1).map((h) => h.id));
      found += exactTop(vectors, q, 10).filter((i) => got.has(`m${i}`)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.98);
  });

  it('scores by exact cosine and skips expired and not-yet-valid vectors', () => {
    const index = FlatVectorIndex.build(3, [
      entry('a', Float32Array.of(2, 0, 0)),
      entry('gone', Float32Array.of(1, 0, 0), 100),
      entry('later', Float32Array.of(1, 0, 0), 1e15, 500),
      entry('b', Float32Array.of(1, 1, 0)),
    ]);
    const hits = index.search(Float32Array.of(1, 0, 0), 5, 200);
    expect(hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(hits[0]!.score).toBeCloseTo(1, 6);
    expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it('removes a vector for real: not found, and none of its bytes left in the arrays', () => {
    const r = rng(5);
    const dim = 32;
    const sample = clusters(dim, 10, r);
    const vectors = sample(3000);
    const index = FlatVectorIndex.build(
      dim,
      vectors.map((v, i) => entry(`m${i}`, v)),
    );
    // Removed from the middle (the last slot moves in) and the end, and after a growth.
    for (let i = 3000; i < 5000; i++) index.add(entry(`m${i}`, sample(1)[0]!));
    for (const id of ['m17', 'm4999', 'm2500']) {
      const stored = index.storedVector(id)!;
      const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      expect(index.search(stored, 1, 1)[0]!.id).toBe(id);
      expect(index.remove(id)).toBe(true);
      expect(index.has(id)).toBe(false);
      expect(index.search(stored, 5, 1).map((h) => h.id)).not.toContain(id);
      for (const raw of index.rawBuffers()) expect(Buffer.from(raw).indexOf(bytes)).toBe(-1);
    }
    expect(index.size).toBe(4997);
    // The vector that moved into a freed slot is still found under its own id.
    const moved = index.storedVector('m4998')!;
    expect(index.search(moved, 1, 1)[0]!.id).toBe('m4998');
    expect(index.remove('m17')).toBe(false);
  });

  it('replaces a vector added again under the same id', () => {
    const index = FlatVectorIndex.build(2, [entry('a', Float32Array.of(1, 0))]);
    index.add(entry('a', Float32Array.of(0, 1)));
    expect(index.size).toBe(1);
    expect(index.search(Float32Array.of(0, 1), 1, 1)[0]!.score).toBeCloseTo(1, 6);
  });

  it('wipes every byte when dropped', () => {
    const index = FlatVectorIndex.build(4, [entry('a', Float32Array.of(1, 2, 3, 4))]);
    index.wipe();
    expect(index.size).toBe(0);
    expect(index.rawBuffers().every((b) => b.every((x) => x === 0))).toBe(true);
  });
});
