// Loads the long SQL statements kept in ./queries/*.sql (read once, at first
// use) and caches prepared statements per connection, so each statement is
// compiled once and its text can be read on its own.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Statement } from 'better-sqlite3';
import type { Db } from './open-database.ts';

const QUERIES_DIR = fileURLToPath(new URL('./queries/', import.meta.url));

let files: Map<string, string> | null = null;

/** The text of `queries/<name>.sql`. Throws on an unknown name (a bug, not input). */
export function querySql(name: string): string {
  if (!files) {
    files = new Map();
    for (const entry of readdirSync(QUERIES_DIR)) {
      if (entry.endsWith('.sql'))
        files.set(entry.slice(0, -4), readFileSync(`${QUERIES_DIR}${entry}`, 'utf8'));
    }
  }
  const sql = files.get(name);
  if (sql === undefined) throw new Error(`no query file queries/${name}.sql`);
  return sql;
}

/** Prepared statements of one connection, by query-file name or inline SQL. */
export class Statements {
  private readonly cache = new Map<string, Statement>();
  constructor(private readonly db: Db) {}

  /** A statement from `queries/<name>.sql`. */
  file(name: string): Statement {
    return this.sql(querySql(name));
  }

  /** A short inline statement (parameters only, never spliced input). */
  sql(text: string): Statement {
    let s = this.cache.get(text);
    if (!s) {
      s = this.db.prepare(text);
      this.cache.set(text, s);
    }
    return s;
  }
}
