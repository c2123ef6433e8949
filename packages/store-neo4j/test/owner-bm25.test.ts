// BM25 over a pool of an owner's matches (no server needed): terms cut as
// Lucene's English analyzer cuts them, the owner's statistics, Lucene's
// constants.
import { describe, expect, it } from 'vitest';
import { indexedTerms, scorePool } from '../src/owner-bm25.ts';

describe('indexedTerms', () => {
  it('lower-cases, drops English stop words and Porter-stems, repeats kept', () => {
    expect(indexedTerms('The Runners were RUNNING to the café, and ran.')).toEqual([
      'runner',
      'were',
      'run',
      'café',
      'ran',
    ]);
  });
});

describe('scorePool', () => {
  it('scores BM25 with the owner’s row count, the pool’s term counts and average length', () => {
    const pool = ['apple tree', 'pear pear pear', 'pear cake', 'sky'].map((text, row) => ({
      text,
      row,
    }));
    const scored = scorePool('apples and pears', pool, 10);
    // apple: 1 of 10 rows; pear: 2; average length (2 + 3 + 2 + 1) / 4 = 2.
    const idf = (n: number) => Math.log(1 + (10 - n + 0.5) / (n + 0.5));
    const w = (tf: number, len: number) => (tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * len) / 2));
    expect(scored.map((s) => s.row)).toEqual([0, 1, 2, 3]);
    expect(scored[0]!.score).toBeCloseTo(idf(1) * w(1, 2), 12);
    expect(scored[1]!.score).toBeCloseTo(idf(2) * w(3, 3), 12);
    expect(scored[2]!.score).toBeCloseTo(idf(2) * w(1, 2), 12);
    expect(scored[3]!.score).toBe(0);
  });

  it('never takes the owner for smaller than the pool', () => {
    const pool = ['pear', 'pear'].map((text, row) => ({ text, row }));
    for (const s of scorePool('pear', pool, 0)) expect(s.score).toBeGreaterThan(0);
  });
});
