// Lengths of full-text rows from FTS5's own records: its docsize record
// (one varint token count per column of a row) and its averages record
// (the row count, then a token total per column), both SQLite varints.
// Kept apart from full-text-statistics.ts because the connection registers
// rowTokens as a SQL function before migrating (open-database.ts), and
// that module reads through prepared statements.
import type Database from 'better-sqlite3';

/**
 * Call `visit` with each SQLite varint of `bytes`, in order: big-endian,
 * seven bits a byte while the high bit is set, all eight bits of a ninth
 * byte. Arithmetic in doubles, exact to 2^53. A visitor rather than an
 * array: rowTokens runs for every ranked row.
 */
function eachVarint(bytes: Uint8Array, visit: (v: number) => void): void {
  let i = 0;
  while (i < bytes.length) {
    let v = 0;
    for (let j = 0; ; j++) {
      const b = bytes[i++]!;
      if (j === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if (b < 0x80 || i >= bytes.length) break;
    }
    visit(v);
  }
}

/** The SQLite varints of `bytes`, in order. */
export function readVarints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  eachVarint(bytes, (v) => out.push(v));
  return out;
}

/** A full-text row's length in tokens (all columns): the sum of its FTS5 docsize record's varints. */
export function rowTokens(sz: Uint8Array): number {
  let sum = 0;
  eachVarint(sz, (v) => (sum += v));
  return sum;
}

/** The name migration 0015 counts the existing rows' tokens with. */
const ROW_TOKENS_SQL = 'keepgraph_fts_row_tokens';

/** Make `keepgraph_fts_row_tokens(sz)` callable on this connection. */
export function registerRowTokens(db: Database.Database): void {
  db.function(ROW_TOKENS_SQL, { deterministic: true }, (sz: unknown) =>
    sz instanceof Uint8Array ? rowTokens(sz) : 0,
  );
}
