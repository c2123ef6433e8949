// Builds the FTS5 MATCH expression for a user's query, scoped to one owner.
// User text is never passed through as FTS syntax: core's queryTerms keeps
// letters and digits only, and each term is quoted, so `"`, `*`, `NEAR(`,
// `OR` or `col:` are only ever words.
import { queryTerms } from '@keepgraph/core';
import { ftsOwnerKey } from './owner-key.ts';

/**
 * `owner_key:"<token>" AND ("t1" OR "t2" ...)`, or null when the query has
 * no searchable word. Terms hold only letters, marks and digits, so they can
 * contain no quote and need no escaping.
 */
export function toFtsMatch(query: string, ownerId: string): string | null {
  const terms = queryTerms(query);
  if (terms.length === 0) return null;
  return `owner_key:"${ftsOwnerKey(ownerId)}" AND (${terms.map((t) => `"${t}"`).join(' OR ')})`;
}
