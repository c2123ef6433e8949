// What the store's operation modules share: the connection, its prepared
// statements, and the vector dimension fixed at init().
import type { Db } from './open-database.ts';
import type { Statements } from './queries.ts';
import type { OwnerVectorIndexes } from './vector-index/owner-indexes.ts';

/** The state every operation receives; built once by init(). */
export interface StoreContext {
  db: Db;
  st: Statements;
  dimensions: number;
  /** In-memory vector indexes of large owners, kept in step with the vector table. */
  vectors: OwnerVectorIndexes;
  /**
   * Copy the WAL back into the main file and truncate it: after a deletion,
   * so deleted rows' old pages do not linger in the log (secure_delete
   * zeroes the main file's pages, not the log's). Returns `result`.
   */
  afterDelete<T>(result: T): T;
}
