// Turns Neo4j errors into KeepGraphError codes at the store boundary, so
// callers (HTTP, workers) branch on codes and never on Neo4j messages. The
// Neo4j status stays on `cause` for logs; a caller's response never names it.
// The kit (core's store-kit.ts) handles what every driver shares.
import { type KeepGraphError } from '@keepgraph/core';
import { storeError, toStoreError as kitStoreError } from '@keepgraph/core/ports';
import { Neo4jError } from 'neo4j-driver';

/** Neo4j status codes that mean "a uniqueness constraint refused the write". */
const CONFLICT_CODES = new Set(['Neo.ClientError.Schema.ConstraintValidationFailed']);

/** A Neo4j error as a KeepGraphError, or null when no code applies. */
export function neo4jDriverError(e: unknown): KeepGraphError | null {
  if (!(e instanceof Neo4jError)) return null;
  const code = e.code;
  if (CONFLICT_CODES.has(code))
    return storeError('conflict', 'a record with this id already exists', e);
  // Connection loss, a leader switch, a deadlock or lock timeout after
  // the driver's own retries: the store is (for now) unavailable.
  if (
    code === 'ServiceUnavailable' ||
    code === 'SessionExpired' ||
    code.startsWith('Neo.TransientError.')
  )
    return storeError('store_unavailable', 'the graph database is unavailable', e);
  return null;
}

/** Map a thrown value as the store's boundary does. */
export function toStoreError(e: unknown): unknown {
  return kitStoreError(e, neo4jDriverError);
}
