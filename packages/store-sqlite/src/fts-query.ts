// Builds the FTS5 MATCH expressions for a user's query, scoped to one owner.
// User text is never passed through as FTS syntax: core's queryTerms keeps
// letters and digits only, and each term is quoted, so `"`, `*`, `NEAR(`,
// `OR` or `col:` are only ever words.
import { queryTerms } from '@keepgraph/core/ports';
import { ownerTag } from './owner-terms.ts';

/**
 * One quoted phrase per query term, `"<tag>term"` (the owner's tagged term,
 * see owner-terms.ts); empty when the query has no searchable word. Terms
 * hold only letters, marks and digits, so they can contain no quote and
 * need no escaping.
 */
export function toFtsPhrases(query: string, ownerId: string): string[] {
  const tag = ownerTag(ownerId);
  return queryTerms(query).map((t) => `"${tag}${t}"`);
}

/** The phrases of toFtsPhrases joined by OR, or null when there are none. */
export function toFtsMatch(query: string, ownerId: string): string | null {
  const phrases = toFtsPhrases(query, ownerId);
  return phrases.length === 0 ? null : phrases.join(' OR ');
}
