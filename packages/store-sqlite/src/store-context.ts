// What the store's operation modules share: the connection, its prepared
// statements, and the vector dimension fixed at init().
import type { StoreRules } from '@keepgraph/core/ports';
import type { Db } from './open-database.ts';
import type { Statements } from './queries.ts';
import type { OwnerVectorIndexes } from './vector-index/owner-indexes.ts';

/** The state every operation receives; built once by init(). */
export interface StoreContext {
  db: Db;
  st: Statements;
  dimensions: number;
  /** The engine's decisions this store applies in its transactions (the kit's STORE_RULES). */
  rules: StoreRules;
  /** In-memory vector indexes of large owners, kept in step with the vector table. */
  vectors: OwnerVectorIndexes;
  /** How long an operation waits out another process's lock, in ms (busy-wait.ts). */
  busyTimeoutMs: number;
  /**
   * Ask for the WAL to be copied back into the main file and truncated once
   * the deletion has committed, so deleted rows' old pages do not linger in
   * the log (secure_delete zeroes the main file's pages, not the log's).
   * Returns `result`.
   */
  afterDelete<T>(result: T): T;
  /** A truncation asked for and not yet done, and how many were asked (busy-wait.ts does them). */
  wal: { pending: boolean; asks: number };
}
