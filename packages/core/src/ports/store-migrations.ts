// A store's migration history as every store judges it: a history that
// cannot be ordered refuses the store, and an applied migration may be
// neither removed nor edited (append-only).
import { KeepGraphError } from '../domain/errors.ts';

/**
 * Read a store's migration files: a history that cannot be ordered (two
 * files of one version, graph-schema's MigrationFilesError) refuses the
 * store's init with `store_unavailable` and the error's reason.
 */
export function readMigrationsOrRefuse<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    const reason = (e as { reason?: unknown }).reason;
    if (typeof reason !== 'string') throw e;
    throw new KeepGraphError('store_unavailable', (e as Error).message, { reason });
  }
}

/** A migration as a store's ledger records it. */
export interface LedgerRow {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Migrations are append-only: refuse (`store_unavailable`) a ledger that
 * names a file no longer there, or a file whose text changed after it was
 * applied.
 */
export function checkMigrationLedger(
  files: readonly { version: number; file: string; checksum: string }[],
  rows: readonly LedgerRow[],
): void {
  const byVersion = new Map(files.map((f) => [f.version, f]));
  for (const row of rows) {
    const file = byVersion.get(row.version);
    if (!file)
      throw new KeepGraphError(
        'store_unavailable',
        `applied migration ${row.version}-${row.name} is missing`,
        { reason: 'migration_missing', version: row.version },
      );
    if (file.checksum !== row.checksum)
      throw new KeepGraphError(
        'store_unavailable',
        `migration ${file.file} changed after it was applied; add a new migration instead`,
        { reason: 'migration_checksum_mismatch', version: row.version },
      );
  }
}
