// Turns driver errors into KeepGraphError codes at the store boundary, so
// callers (HTTP, workers) branch on codes and never on SQLite messages. The
// SQLite code stays on `cause` for logs; a caller's response never names it.
import Database from 'better-sqlite3';
import { KeepGraphError } from '@keepgraph/core';

function withCause(err: KeepGraphError, cause: unknown): KeepGraphError {
  (err as Error).cause = cause;
  return err;
}

/** Map a thrown value to a KeepGraphError where a code applies; pass others through. */
export function toStoreError(e: unknown): unknown {
  if (e instanceof KeepGraphError) return e;
  // The driver's own wording (parameter counts, integer sizes) stays on `cause`.
  if (e instanceof RangeError)
    return withCause(
      new KeepGraphError('invalid_input', 'a value is outside what the store can hold'),
      e,
    );
  if (e instanceof Database.SqliteError) {
    const code = e.code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      return withCause(new KeepGraphError('conflict', 'a record with this id already exists'), e);
    }
    if (code.startsWith('SQLITE_CONSTRAINT')) {
      return withCause(
        new KeepGraphError('invalid_input', 'the write breaks a store constraint'),
        e,
      );
    }
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      return withCause(
        new KeepGraphError('store_unavailable', 'the store is locked by another writer'),
        e,
      );
    }
  }
  return e;
}

/** Run `fn`, rethrowing its error through toStoreError. */
export function mapErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw toStoreError(e);
  }
}
