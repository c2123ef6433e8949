// Turns driver errors into KeepGraphError codes at the store boundary, so
// callers (HTTP, workers) branch on codes and never on Neo4j messages. The
// Neo4j status stays on `cause` for logs; a caller's response never names it.
import { KeepGraphError } from '@keepgraph/core';
import { Neo4jError } from 'neo4j-driver';

/** Neo4j status codes that mean "a uniqueness constraint refused the write". */
const CONFLICT_CODES = new Set(['Neo.ClientError.Schema.ConstraintValidationFailed']);

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
  if (e instanceof Neo4jError) {
    const code = e.code;
    if (CONFLICT_CODES.has(code)) {
      return withCause(new KeepGraphError('conflict', 'a record with this id already exists'), e);
    }
    // Connection loss, a leader switch, a deadlock or lock timeout after
    // the driver's own retries: the store is (for now) unavailable.
    if (
      code === 'ServiceUnavailable' ||
      code === 'SessionExpired' ||
      code.startsWith('Neo.TransientError.')
    ) {
      return withCause(
        new KeepGraphError('store_unavailable', 'the graph database is unavailable'),
        e,
      );
    }
  }
  return e;
}

/** Await `fn`, rethrowing its error through toStoreError. */
export async function mapErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toStoreError(e);
  }
}
