// Builds the FTS5 MATCH expression for a user's query, scoped to one owner.
// User text is never passed through as FTS syntax: core's queryTerms keeps
// letters and digits only, and each term is quoted, so `"`, `*`, `NEAR(`,
// `OR` or `col:` are only ever words.
import { queryTerms } from '@keepgraph/core';
import { ownerTag } from './owner-terms.ts';

/**
 * `"<tag>t1" OR "<tag>t2" ...` (the owner's tagged terms, see
 * owner-terms.ts), or null when the query has no searchable word. Terms hold
 * only letters, marks and digits, so they can contain no quote and need no
 * escaping.
 */
export function toFtsMatch(query: string, ownerId: string): string | null {
  const terms = queryTerms(query);
  if (terms.length === 0) return null;
  const tag = ownerTag(ownerId);
  return terms.map((t) => `"${tag}${t}"`).join(' OR ');
}
