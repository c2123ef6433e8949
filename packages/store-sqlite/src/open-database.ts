// Opens the SQLite file (or ':memory:') with the settings every KeepGraph
// connection needs: WAL, foreign keys, a busy timeout, secure delete, and
// the sqlite-vec extension loaded, and the store's own SQL function.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { registerRowTokens } from './fts-row-tokens.ts';
import { registerOwnerTaggedText } from './owner-terms.ts';

/** The better-sqlite3 connection type, named once for the other modules. */
export type Db = Database.Database;

/** How long a writer waits for another process's lock by default, in ms. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export interface OpenOptions {
  /** A file path, or ':memory:' for a private in-memory database. */
  path: string;
  /** How long a writer waits for another process's lock, in ms. */
  busyTimeoutMs?: number;
}

/** True when `path` names an in-memory database rather than a file. */
export function isMemoryPath(path: string): boolean {
  return path === ':memory:' || path === '';
}

/** The busy timeout of `opts`, in whole ms. */
export function busyTimeoutMs(opts: Pick<OpenOptions, 'busyTimeoutMs'>): number {
  return Math.max(0, Math.trunc(opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
}

/** Open a connection configured for KeepGraph. Creates the parent directory. */
export function openDatabase(opts: OpenOptions): Db {
  const inMemory = isMemoryPath(opts.path);
  const file = inMemory ? ':memory:' : resolve(opts.path);
  if (!inMemory) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs(opts)}`);
    // WAL lets readers run while a writer commits; in-memory databases ignore it.
    if (!inMemory) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Deleted content is overwritten with zeros, so a forgotten memory's text
    // cannot be read back from free pages of the file (invariant 7).
    db.pragma('secure_delete = ON');
    sqliteVec.load(db);
    registerOwnerTaggedText(db);
    registerRowTokens(db);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
