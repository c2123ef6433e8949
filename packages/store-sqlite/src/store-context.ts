// What the store's operation modules share: the connection, its prepared
// statements, and the vector dimension fixed at init().
import type { Db } from './open-database.ts';
import type { Statements } from './queries.ts';

/** The state every operation receives; built once by init(). */
export interface StoreContext {
  db: Db;
  st: Statements;
  dimensions: number;
}
