// BM25 over one owner's full-text matches, with the owner's statistics.
// Lucene scores a hit with statistics of the whole index: a term's
// document count across every owner, the index's document count and
// average length. So an owner's ranking moved with what the other owners
// wrote (bench/README: locomo-dev with full text alone, 45.6 → 26.9 R@5
// beside 1,000 other owners of 100 memories). When Lucene's owner-scoped
// query returns every match of the owner (the pool), the pool holds all
// that BM25 needs from the owner alone: each term's document count among
// the owner's memories, its count in each row, each row's length; the
// owner's memory count comes from its Owner node. The pool's own average
// length stands for the owner's (the store keeps no token total per owner).
//
// Words are cut as Lucene's English analyzer cuts them, near enough: the
// query's words (core's queryTerms), lower case, its stop words dropped, Porter
// stemmed (the `stemmer` package: Porter's 1980 algorithm, which Lucene's
// PorterStemFilter implements too). Where the two differ on a word, Lucene
// still decides what matches; this decides only the order.
import { stemmer } from 'stemmer';
import { queryTerms, searchWords } from '@keepgraph/core/ports';

/** Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET): never indexed. */
const STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/** BM25's constants, Lucene's defaults (BM25Similarity). */
const K1 = 1.2;
const B = 0.75;

/** Stems of words seen, bounded: a recall stems the same few thousand words again and again. */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 100_000;

function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/** Words as terms: stop words dropped, the rest stemmed. */
function toTerms(words: Iterable<string>): string[] {
  const out: string[] = [];
  for (const word of words) if (!STOP_WORDS.has(word)) out.push(stem(word));
  return out;
}

/** The indexed terms of a text, in order, repeats kept. */
export function indexedTerms(text: string): string[] {
  return toTerms(searchWords(text));
}

/** A pool row: its text, and what the ranking returns of it. */
export interface PoolRow<T> {
  text: string;
  row: T;
}

/**
 * The pool's rows with their BM25 score for `query`, in pool order.
 * `ownerRows` is the owner's memory count (BM25's N); the pool must hold
 * every memory of the owner that matches a query term, so a term's count
 * in the pool is its count in the owner. A row no query term is found in
 * (the analyzers cut it differently) scores 0.
 */
export function scorePool<T>(
  query: string,
  pool: readonly PoolRow<T>[],
  ownerRows: number,
): { row: T; score: number }[] {
  // The words the Lucene query asked for (toLuceneQuery), as terms.
  const terms = [...new Set(toTerms(queryTerms(query)))];
  const wanted = new Map(terms.map((t, i) => [t, i]));
  // Per row: its length and each query term's count in it.
  const lengths: number[] = [];
  const counts: Uint32Array[] = [];
  const withTerm = new Uint32Array(terms.length);
  for (const { text } of pool) {
    const row = indexedTerms(text);
    const tf = new Uint32Array(terms.length);
    for (const t of row) {
      const i = wanted.get(t);
      if (i !== undefined) tf[i]!++;
    }
    for (let i = 0; i < terms.length; i++) if (tf[i]! > 0) withTerm[i]!++;
    lengths.push(row.length);
    counts.push(tf);
  }
  const average = lengths.reduce((a, b) => a + b, 0) / Math.max(1, pool.length) || 1;
  // N is never below the pool (a count behind by a concurrent write).
  const rows = Math.max(ownerRows, pool.length);
  const idf = [...withTerm].map((n) => Math.log(1 + (rows - n + 0.5) / (n + 0.5)));
  return pool.map(({ row }, r) => {
    const k = K1 * (1 - B + (B * lengths[r]!) / average);
    let score = 0;
    counts[r]!.forEach((tf, i) => {
      if (tf > 0) score += (idf[i]! * tf * (K1 + 1)) / (tf + k);
    });
    return { row, score };
  });
}
