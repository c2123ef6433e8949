// Applies the numbered SQLite migrations of graph-schema/sqlite in order,
// under a write lock, recording each in the schema_migrations ledger. An
// applied file whose checksum changed is refused: migrations are append-only.
import {
  checkMigrationLedger,
  readMigrationsOrRefuse,
  type LedgerRow,
} from '@keepgraph/core/ports';
import {
  SQLITE_MIGRATIONS_DIR,
  migrationChecksum,
  readMigrationFiles,
  type MigrationFileText,
} from '@keepgraph/graph-schema';
import type { Db } from './open-database.ts';

/** One migration file: `0001-core-graph.sql` is version 1, name 'core-graph'; its text is `sql`. */
export type MigrationFile = Omit<MigrationFileText, 'text'> & { sql: string };

export interface MigrationResult {
  /** Versions applied by this call (empty when already up to date). */
  applied: number[];
  /** The highest version now recorded in the ledger. */
  current: number;
}

export { migrationChecksum };

/** Read and order the migration files of a directory. */
export function readMigrations(dir: string = SQLITE_MIGRATIONS_DIR): MigrationFile[] {
  return readMigrationsOrRefuse(() => readMigrationFiles(dir, 'sql')).map(({ text, ...f }) => ({
    ...f,
    sql: text,
  }));
}

const LEDGER_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  checksum   TEXT NOT NULL,
  applied_at TEXT NOT NULL
) STRICT`;

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
    checkMigrationLedger(files, rows);
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
