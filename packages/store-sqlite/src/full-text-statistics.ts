// The statistics BM25 needs, per owner. FTS5's bm25() computes a term's IDF
// as log((N - n + 0.5) / (n + 0.5)) with N the whole table's row count and
// n the rows holding the term, and normalises a row's length by the whole
// table's average. With owner-tagged terms (owner-terms.ts) n is already
// the owner's; N and the average were not, so an owner's ranking moved with
// what the other owners wrote. These read the owner's (owner_text_rows,
// migration 0015) and the table's (FTS5's own records), so a search can
// turn FTS5's score into the owner's (search-text.ts).
import { readVarints, rowTokens } from './fts-row-tokens.ts';
import type { Statements } from './queries.ts';

/** Row count and token total of the owner's full text and of the whole table's. */
export interface TextStatistics {
  owner: { rows: number; tokens: number };
  table: { rows: number; tokens: number };
}

/**
 * The owner's from owner_text_rows, the table's from FTS5's averages record
 * (row 1 of memory_fts_terms_data: a varint row count, then a varint token
 * total per column), which FTS5 keeps for this same use.
 */
export function textStatistics(st: Statements, ownerId: string): TextStatistics {
  const row = st
    .sql(
      `SELECT (SELECT block FROM memory_fts_terms_data WHERE id = 1) AS totals,
              coalesce(o.rows, 0) AS rows, coalesce(o.tokens, 0) AS tokens
         FROM (SELECT 1) LEFT JOIN owner_text_rows o ON o.owner_id = ?`,
    )
    .get(ownerId) as { totals: Buffer | null; rows: number; tokens: number };
  const totals = row.totals ? readVarints(row.totals) : [0];
  return {
    owner: { rows: row.rows, tokens: row.tokens },
    table: { rows: totals[0]!, tokens: totals.slice(1).reduce((a, b) => a + b, 0) },
  };
}

/** Count full-text rows and tokens, added (or removed, when negative), for each owner. */
export function addOwnerTextRows(
  st: Statements,
  changes: ReadonlyMap<string, { rows: number; tokens: number }>,
): void {
  const add = st.sql(
    `INSERT INTO owner_text_rows (owner_id, rows, tokens) VALUES (?, ?, ?)
       ON CONFLICT (owner_id) DO UPDATE SET rows = rows + excluded.rows, tokens = tokens + excluded.tokens`,
  );
  const dropEmpty = st.sql('DELETE FROM owner_text_rows WHERE owner_id = ? AND rows <= 0');
  for (const [ownerId, { rows, tokens }] of changes) {
    if (rows === 0 && tokens === 0) continue;
    add.run(ownerId, rows, tokens);
    if (rows < 0) dropEmpty.run(ownerId);
  }
}

/** The token counts of these full-text rows, summed (read before deleting them). */
export function tokensOfRows(st: Statements, rowids: readonly number[]): number {
  const sizes = st
    .sql('SELECT sz FROM memory_fts_terms_docsize WHERE id IN (SELECT value FROM json_each(?))')
    .pluck()
    .all(JSON.stringify(rowids)) as Buffer[];
  return sizes.reduce((sum, sz) => sum + rowTokens(sz), 0);
}

/** FTS5's bm25() constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

/**
 * BM25's IDF as FTS5 computes it: a term in more than half of the rows
 * would weigh nothing or less, and is given a token 1e-6 instead.
 */
export function bm25Idf(rows: number, withTerm: number): number {
  const idf = Math.log((rows - withTerm + 0.5) / (withTerm + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** BM25's length factor K for a row of `length` tokens against an average row. */
export function lengthFactor(length: number, average: number): number {
  return K1 * (1 - B + (B * length) / average);
}

/** BM25's term weight for a term found `tf` times in a row with length factor `k`. */
export function termWeight(tf: number, k: number): number {
  return (tf * (K1 + 1)) / (tf + k);
}

/**
 * The term frequency behind a term weight FTS5 reported (termWeight
 * inverted), rounded: frequencies are whole counts.
 */
export function termFrequency(weight: number, k: number): number {
  return Math.max(1, Math.round((weight * k) / (K1 + 1 - weight)));
}
