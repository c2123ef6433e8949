// The SQLite store's own backup file: a copy of the database made with
// SQLite's online backup API (SqliteMemoryStore.backupTo), checked, with
// the backup's header in a table of its own and turned into a single file
// (rollback journal instead of WAL), so the file alone is the backup. The
// database holds everything of the store (rows, the full-text index, the
// vectors, edges, sessions, read log, outbox, keys, audit log); what lives
// beside it in the data dir is the audit secret (carried in the header) and
// operator.key (a credential, never carried: its hash is in the database).
import { existsSync, openSync, readSync, closeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { KeepGraphError } from '@keepgraph/core';
import { type BackupHeader } from '@keepgraph/core/backup';
import { openDatabase } from './open-database.ts';

/** The table a backup file keeps its header in; a restore drops it. */
export const BACKUP_HEADER_TABLE = 'keepgraph_backup';

const SQLITE_MAGIC = 'SQLite format 3\0';

/** What a backup file holds, counted in the copy. */
export interface SqliteBackupCounts {
  memories: number;
  owners: number;
  /** Memories with a vector. */
  vectors: number;
  apiKeys: number;
  auditEvents: number;
}

/** Whether the file at `path` starts as an SQLite database does. */
export function isSqliteFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const n = readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.toString('latin1') === SQLITE_MAGIC;
  } finally {
    closeSync(fd);
  }
}

function counts(db: Database.Database): SqliteBackupCounts {
  const one = (sql: string) => db.prepare(sql).pluck().get() as number;
  return {
    memories: one('SELECT count(*) FROM memories'),
    owners: one('SELECT count(DISTINCT owner_id) FROM memories'),
    vectors: one('SELECT count(*) FROM memory_vectors'),
    apiKeys: one('SELECT count(*) FROM api_keys'),
    auditEvents: one('SELECT count(*) FROM audit_events'),
  };
}

/**
 * Check a database copy: SQLite's integrity check, the full-text index's
 * own, and every memory's full-text row. Throws `invalid_input` naming what
 * is wrong.
 */
function checkCopy(db: Database.Database, what: string): void {
  const rows = db.prepare('PRAGMA integrity_check').pluck().all() as string[];
  if (rows.length !== 1 || rows[0] !== 'ok')
    throw new KeepGraphError(
      'invalid_input',
      `${what} is not a sound SQLite database: ${rows.slice(0, 3).join('; ')}`,
    );
  try {
    db.prepare("INSERT INTO memory_fts_terms (memory_fts_terms) VALUES ('integrity-check')").run();
  } catch (e) {
    throw new KeepGraphError(
      'invalid_input',
      `${what}: the full-text index does not match its rows (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  const missing = db
    .prepare(
      'SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memory_fts_terms f WHERE f.rowid = m.rid)',
    )
    .pluck()
    .get() as number;
  if (missing > 0)
    throw new KeepGraphError('invalid_input', `${what}: ${missing} memories have no full-text row`);
}

/** Open a file as a KeepGraph database, or say it is not one. */
function openCopy(path: string, what: string): Database.Database {
  let db: Database.Database;
  try {
    db = openDatabase({ path, busyTimeoutMs: 0 });
    db.prepare('SELECT count(*) FROM memories').get();
  } catch (e) {
    throw new KeepGraphError(
      'invalid_input',
      `${what} is not a KeepGraph SQLite database (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  return db;
}

/**
 * Finish a fresh copy made by `backupTo`: check it, record `header` (its
 * snapshot is the copy's last audit event) and make it one self-contained
 * file. Returns the header as written and what the copy holds.
 */
export function sealSqliteBackup(
  path: string,
  header: Omit<BackupHeader, 'snapshot'>,
): { header: BackupHeader; counts: SqliteBackupCounts } {
  const db = openCopy(path, 'the backup copy');
  try {
    checkCopy(db, 'the backup copy');
    const last = db
      .prepare('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1')
      .get() as { seq: number; hash: string } | undefined;
    const full: BackupHeader = {
      ...header,
      snapshot: last ? { seq: last.seq, hash: last.hash } : null,
    };
    db.exec(
      `CREATE TABLE ${BACKUP_HEADER_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`,
    );
    db.prepare(`INSERT INTO ${BACKUP_HEADER_TABLE} (key, value) VALUES ('header', ?)`).run(
      JSON.stringify(full),
    );
    const c = counts(db);
    // One file: without WAL, nothing of the backup lives beside it.
    db.pragma('journal_mode = DELETE');
    return { header: full, counts: c };
  } finally {
    db.close();
  }
}

/**
 * Check a SQLite backup file (a copy the caller may change: it is opened
 * read-write) and read its header. With `drop`, the header table is removed,
 * leaving a plain store database. Throws `invalid_input` for a file that is
 * not a sound KeepGraph backup, or one of another format version.
 */
export function openSqliteBackup(
  path: string,
  opts: { drop?: boolean } = {},
): { header: BackupHeader; counts: SqliteBackupCounts } {
  if (!existsSync(path)) throw new KeepGraphError('not_found', `no file at ${path}`);
  const db = openCopy(path, 'the backup');
  try {
    checkCopy(db, 'the backup');
    let raw: string | undefined;
    try {
      raw = db
        .prepare(`SELECT value FROM ${BACKUP_HEADER_TABLE} WHERE key = 'header'`)
        .pluck()
        .get() as string | undefined;
    } catch {
      raw = undefined;
    }
    if (raw === undefined)
      throw new KeepGraphError(
        'invalid_input',
        'the file is a SQLite database but not a KeepGraph backup (no backup header): back up with `keepgraph backup`',
      );
    const header = JSON.parse(raw) as BackupHeader;
    if (header.format !== 'keepgraph-backup' || header.version !== 1)
      throw new KeepGraphError(
        'invalid_input',
        `backup version ${JSON.stringify(header.version)} is not supported (this KeepGraph reads version 1)`,
      );
    const c = counts(db);
    if (opts.drop) db.exec(`DROP TABLE ${BACKUP_HEADER_TABLE}`);
    return { header, counts: c };
  } finally {
    db.close();
  }
}

/**
 * Whether another connection, in any process, has the database open (a
 * running `keepgraph start`, a worker, another command): exclusive locking
 * cannot be taken while one does. Restore swaps the file only when none has.
 */
export function databaseInUse(path: string): boolean {
  if (!existsSync(path)) return false;
  const db = new Database(path, { timeout: 0, fileMustExist: true });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN IMMEDIATE');
    db.exec('COMMIT');
    return false;
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw e;
  } finally {
    db.close();
  }
}
