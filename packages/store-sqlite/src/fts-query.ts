// Builds the FTS5 MATCH expression for a user's query. User text is never
// passed through as FTS syntax: it is cut into letter/digit tokens and each
// is quoted, so `"`, `*`, `NEAR(`, `OR` or `col:` are only ever words.
/** Most tokens used from one query: bounds the cost of a pasted essay. */
export const MAX_QUERY_TOKENS = 64;

/**
 * An OR of quoted tokens, or null when the query has no searchable word.
 * Tokens hold only letters, marks and digits, so they can contain no quote
 * and need no escaping; the quotes make FTS5 read keywords as plain words.
 */
export function toFtsMatch(query: string): string | null {
  const tokens =
    query
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
  const unique = [...new Set(tokens)].slice(0, MAX_QUERY_TOKENS);
  if (unique.length === 0) return null;
  return unique.map((t) => `"${t}"`).join(' OR ');
}
