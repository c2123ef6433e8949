// Applies the numbered SQLite migrations of graph-schema/sqlite in order,
// under a write lock, recording each in the schema_migrations ledger. An
// applied file whose checksum changed is refused: migrations are append-only.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KeepGraphError } from '@keepgraph/core';
import { SQLITE_MIGRATIONS_DIR } from '@keepgraph/graph-schema';
import type { Db } from './open-database.ts';

/** One migration file: `0001-core-graph.sql` is version 1, name 'core-graph'. */
export interface MigrationFile {
  version: number;
  name: string;
  file: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  /** Versions applied by this call (empty when already up to date). */
  applied: number[];
  /** The highest version now recorded in the ledger. */
  current: number;
}

const FILE_PATTERN = /^(\d{4})-([a-z0-9][a-z0-9-]*)\.sql$/;

/** Checksum over the text with line endings normalised, so a CRLF checkout is not a "change". */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/** Read and order the migration files of a directory. */
export function readMigrations(dir: string = SQLITE_MIGRATIONS_DIR): MigrationFile[] {
  const files: MigrationFile[] = [];
  for (const entry of readdirSync(dir)) {
    const m = FILE_PATTERN.exec(entry);
    if (!m) continue;
    const sql = readFileSync(join(dir, entry), 'utf8');
    files.push({
      version: Number(m[1]),
      name: m[2] ?? entry,
      file: entry,
      sql,
      checksum: migrationChecksum(sql),
    });
  }
  files.sort((a, b) => a.version - b.version);
  for (let i = 1; i < files.length; i++) {
    if (files[i]?.version === files[i - 1]?.version) {
      throw new KeepGraphError(
        'store_unavailable',
        `two migrations share version ${files[i]?.version}`,
        {
          reason: 'migration_duplicate_version',
        },
      );
    }
  }
  return files;
}

const LEDGER_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  checksum   TEXT NOT NULL,
  applied_at TEXT NOT NULL
) STRICT`;

interface LedgerRow {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Bring the database up to the newest migration. Idempotent. Runs in one
 * IMMEDIATE transaction: the write lock taken at BEGIN serialises processes
 * opening the same file, so two never apply the same migration, and a
 * failing migration leaves the database as it was.
 */
export function migrate(db: Db, opts: { dir?: string; now?: () => Date } = {}): MigrationResult {
  const files = readMigrations(opts.dir);
  const now = opts.now ?? (() => new Date());
  const run = db.transaction((): MigrationResult => {
    db.exec(LEDGER_DDL);
    const rows = db
      .prepare('SELECT version, name, checksum FROM schema_migrations ORDER BY version')
      .all() as LedgerRow[];
    const byVersion = new Map(files.map((f) => [f.version, f]));
    for (const row of rows) {
      const file = byVersion.get(row.version);
      if (!file) {
        throw new KeepGraphError(
          'store_unavailable',
          `applied migration ${row.version}-${row.name} is missing`,
          {
            reason: 'migration_missing',
            version: row.version,
          },
        );
      }
      if (file.checksum !== row.checksum) {
        throw new KeepGraphError(
          'store_unavailable',
          `migration ${file.file} changed after it was applied; add a new migration instead`,
          { reason: 'migration_checksum_mismatch', version: row.version },
        );
      }
    }
    const done = new Set(rows.map((r) => r.version));
    const record = db.prepare(
      'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)',
    );
    const applied: number[] = [];
    for (const f of files) {
      if (done.has(f.version)) continue;
      db.exec(f.sql);
      record.run(f.version, f.name, f.checksum, now().toISOString());
      applied.push(f.version);
    }
    const current = Math.max(0, ...rows.map((r) => r.version), ...applied);
    return { applied, current };
  });
  return run.immediate();
}
