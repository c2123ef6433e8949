// Query terms: safe tokens, stop words dropped unless nothing else is left.
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_TERMS, queryTerms } from '../src/domain/query-terms.ts';

describe('queryTerms', () => {
  it('keeps content words, lower-cased and unique, and drops stop words', () => {
    const question = 'What did Alex say about the flight to Tokyo? Tokyo!';
    expect(queryTerms(question)).toEqual(['alex', 'say', 'flight', 'tokyo']);
  });
  it('never passes search syntax through', () => {
    expect(queryTerms('"x" OR y* NEAR(a b) col:z')).toEqual(['x', 'y', 'near', 'b', 'col', 'z']);
  });
  it('falls back to stop words when the query has nothing else', () => {
    expect(queryTerms('who was it?')).toEqual(['who', 'was', 'it']);
    expect(queryTerms('?!')).toEqual([]);
  });
  it('bounds the number of terms', () => {
    expect(queryTerms(Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '))).toHaveLength(
      MAX_QUERY_TERMS,
    );
  });
});
