// Turns SQLite errors into KeepGraphError codes at the store boundary, so
// callers (HTTP, workers) branch on codes and never on SQLite messages. The
// SQLite code stays on `cause` for logs; a caller's response never names it.
// The kit (core's store-kit.ts) handles what every driver shares.
import Database from 'better-sqlite3';
import { type KeepGraphError } from '@keepgraph/core';
import { storeError, toStoreError as kitStoreError } from '@keepgraph/core/ports';

/** A SQLite error as a KeepGraphError, or null when no code applies. */
export function sqliteDriverError(e: unknown): KeepGraphError | null {
  if (!(e instanceof Database.SqliteError)) return null;
  const code = e.code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return storeError('conflict', 'a record with this id already exists', e);
  if (code.startsWith('SQLITE_CONSTRAINT'))
    return storeError('invalid_input', 'the write breaks a store constraint', e);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return storeError('store_unavailable', 'the store is locked by another writer', e);
  // The disk (or a size limit) is full. SQLite rolled the transaction back,
  // so nothing of it is kept; the next write succeeds once there is room.
  if (code === 'SQLITE_FULL')
    return storeError('store_full', 'the store has no room left on its disk', e);
  return null;
}

/** Map a thrown value as the store's boundary does. */
export function toStoreError(e: unknown): unknown {
  return kitStoreError(e, sqliteDriverError);
}
