// The words of a query that full-text search looks for, the same for every
// store: letters and digits only (so no user text is ever read as search
// syntax), lower-cased, de-duplicated, English stop words dropped (stopword's
// list), at most MAX_QUERY_TERMS. Dropping stop words matters for speed as
// much as for ranking: "what", "did", "the" match most of an owner's
// memories and BM25 gives them almost no weight anyway.
import { eng as ENGLISH_STOP_WORDS } from 'stopword';

/** Most terms used from one query: bounds the cost of a pasted essay. */
export const MAX_QUERY_TERMS = 64;

const STOP = new Set(ENGLISH_STOP_WORDS);

/**
 * A word as full-text search cuts one: a run of letters, marks and digits.
 * A store that rewrites indexed text word by word (SQLite's owner-tagged
 * terms) cuts it with this too, so both sides agree on where words are.
 */
export const SEARCH_WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** A text's search words: NFKC, lower case, cut by SEARCH_WORD; in order, repeats kept. */
export function searchWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(SEARCH_WORD) ?? [];
}

export function queryTerms(query: string): string[] {
  const tokens = searchWords(query);
  const unique = [...new Set(tokens)];
  const content = unique.filter((t) => !STOP.has(t));
  // A query made only of stop words ("who was it?") still searches for them.
  return (content.length > 0 ? content : unique).slice(0, MAX_QUERY_TERMS);
}
