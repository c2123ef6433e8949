// Turns Neo4j errors into KeepGraphError codes at the store boundary, so
// callers (HTTP, workers) branch on codes and never on Neo4j messages. The
// Neo4j status stays on `cause` for logs; a caller's response never names it.
// The kit (core's store-kit.ts) handles what every driver shares.
import { type KeepGraphError } from '@keepgraph/core';
import { storeError, toStoreError as kitStoreError } from '@keepgraph/core/ports';
import { Neo4jError } from 'neo4j-driver';

/** Neo4j status codes that mean "a uniqueness constraint refused the write". */
const CONFLICT_CODES = new Set(['Neo.ClientError.Schema.ConstraintValidationFailed']);

/**
 * The driver's ProtocolErrors that say the connection was lost (a request
 * in flight as the server shut down, a connection reset in its handshake).
 * The driver does not count them as retriable, and recalls running as Neo4j
 * stopped answered 500 with them. Its other ProtocolErrors (a value it
 * cannot send) are our faults and stay unmapped.
 */
const CONNECTION_LOST =
  /^(Connection was closed by server|Failed to connect to server|Connection lost)/;

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
    code.startsWith('Neo.TransientError.') ||
    (code === 'ProtocolError' && CONNECTION_LOST.test(e.message))
  )
    return storeError('store_unavailable', 'the graph database is unavailable', e);
  return null;
}

/** Map a thrown value as the store's boundary does. */
export function toStoreError(e: unknown): unknown {
  return kitStoreError(e, neo4jDriverError);
}
