// Builds the Lucene query for a user's words. User text is never passed
// through as Lucene syntax: it is cut into letter/digit tokens (the same
// tokens as the SQLite store's toFtsMatch) and each is quoted, so `"`, `*`,
// `~`, `:`, `AND`, `OR`, `(` or `field:` are only ever words. The owner is a
// hashed key term, so the query is owner-scoped inside the index.
// The words asked for are core's queryTerms, the same as the SQLite
// store's, English stop words dropped: Lucene's analyzer drops only its own
// 33, and asking for "what", "did" and "does" as well matched most of an
// owner's turns and ranked them apart from SQLite's (locomo-dev on Neo4j
// 2.8 points of R@5 below SQLite, bench/README).
import { queryTerms } from '@keepgraph/core/ports';

/**
 * `ownerKey:<key> AND (text:"t1" OR text:"t2" ...)`, or null when the query
 * has no searchable word. Tokens hold only letters, marks and digits, so
 * they contain no quote or backslash and need no escaping inside quotes;
 * `ownerKey` is a hex hash (record-mapping.ts ownerKey).
 */
export function toLuceneQuery(ownerKeyValue: string, query: string): string | null {
  if (!/^[a-z0-9]+$/.test(ownerKeyValue)) throw new Error('owner key must be a hex hash');
  const tokens = queryTerms(query);
  if (tokens.length === 0) return null;
  return `ownerKey:${ownerKeyValue} AND (${tokens.map((t) => `text:"${t}"`).join(' OR ')})`;
}
