// Opens the SQLite file (or ':memory:') with the settings every KeepGraph
// connection needs: WAL, foreign keys, a busy timeout, secure delete, and
// the sqlite-vec extension loaded, and the store's own SQL function.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
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

/** Mode of a database file and of the files SQLite keeps beside it: its owner's only. */
export const DATABASE_FILE_MODE = 0o600;

/** The files SQLite keeps beside a database, by suffix. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/**
 * Make `file` exist and be private before SQLite opens it (DESIGN
 * invariant 14: a database holds memories). SQLite would create it 0644
 * less the umask; it gives its -wal, -shm and -journal the database file's
 * own mode, whatever the umask, so a database file that is 0600 when SQLite
 * opens it keeps all of them private. Side files left from before keep
 * their mode, so they are tightened too.
 */
export function makeDatabaseFilePrivate(file: string): void {
  try {
    closeSync(openSync(file, 'wx', DATABASE_FILE_MODE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (const f of [file, ...SIDE_FILES.map((s) => file + s)]) {
    let mode: number;
    try {
      mode = statSync(f).mode;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    if ((mode & 0o077) !== 0) chmodSync(f, DATABASE_FILE_MODE);
  }
}

/** Open a connection configured for KeepGraph. Creates the parent directory (0700) and the file (0600). */
export function openDatabase(opts: OpenOptions): Db {
  const inMemory = isMemoryPath(opts.path);
  const file = inMemory ? ':memory:' : resolve(opts.path);
  if (!inMemory) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    makeDatabaseFilePrivate(file);
  }
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
