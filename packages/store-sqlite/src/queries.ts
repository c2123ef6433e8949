// Loads the long SQL statements kept in ./queries/*.sql (read once, at first
// use) and caches prepared statements per connection, so each statement is
// compiled once and its text can be read on its own. A part that two
// statements must share word for word (the hits both entity plans find, the
// filter a list and its count apply) is a fragment, ./queries/fragments/
// <name>.sql, which a statement takes in with a line `@include <name>`.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Statement } from 'better-sqlite3';
import type { Db } from './open-database.ts';

const QUERIES_DIR = fileURLToPath(new URL('./queries/', import.meta.url));
const FRAGMENTS_DIR = `${QUERIES_DIR}fragments/`;

let files: Map<string, string> | null = null;

/** The `.sql` files of `dir` by name (without the extension). */
function readSqlFiles(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir)) {
    if (entry.endsWith('.sql'))
      found.set(entry.slice(0, -4), readFileSync(`${dir}${entry}`, 'utf8'));
  }
  return found;
}

/**
 * `sql` with each `@include <name>` replaced by the text of
 * `queries/fragments/<name>.sql`, itself expanded. It stands last on its
 * line, after a keyword or nothing (` WHERE @include live`). An unknown
 * fragment throws, as does a fragment including itself; a line left
 * unexpanded would not even parse (`@include` reads as a parameter).
 */
function expandIncludes(
  sql: string,
  fragments: Map<string, string>,
  within: string[] = [],
): string {
  return sql.replace(/^(.*?)@include ([a-z0-9-]+)[ \t]*$/gm, (_, before: string, name: string) => {
    const fragment = fragments.get(name);
    if (fragment === undefined) throw new Error(`no query fragment queries/fragments/${name}.sql`);
    if (within.includes(name)) throw new Error(`query fragment ${name} includes itself`);
    // The fragment's own comment lines go first, so the keyword before the
    // include is followed by the fragment's first clause.
    const lines = expandIncludes(fragment, fragments, [...within, name])
      .trimEnd()
      .split('\n');
    const comments = lines.filter((l) => l.startsWith('--'));
    const body = lines.filter((l) => !l.startsWith('--'));
    return [...comments, `${before}${body.join('\n')}`].join('\n');
  });
}

/** The text of `queries/<name>.sql`, fragments included. Throws on an unknown name (a bug, not input). */
export function querySql(name: string): string {
  if (!files) {
    const fragments = readSqlFiles(FRAGMENTS_DIR);
    const expanded = new Map<string, string>();
    for (const [file, sql] of readSqlFiles(QUERIES_DIR))
      expanded.set(file, expandIncludes(sql, fragments));
    files = expanded;
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
