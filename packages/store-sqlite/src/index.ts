// Public surface of @keepgraph/store-sqlite: the store factory and the
// migration runner (for the CLI's `migrate` command and tests).
export { createSqliteStore, SqliteMemoryStore } from './sqlite-store.ts';
export type { SqliteStoreOptions } from './sqlite-store.ts';
export { migrate, readMigrations, migrationChecksum } from './migrate.ts';
export type { MigrationFile, MigrationResult } from './migrate.ts';
export { toFtsMatch } from './fts-query.ts';
export {
  BACKUP_HEADER_TABLE,
  databaseInUse,
  isSqliteFile,
  openSqliteBackup,
  sealSqliteBackup,
} from './sqlite-backup.ts';
export type { SqliteBackupCounts } from './sqlite-backup.ts';
export { FlatVectorIndex } from './vector-index/flat-index.ts';
export type { IndexEntry } from './vector-index/flat-index.ts';
