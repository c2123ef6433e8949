// What the store's operation modules share: the driver, the database name,
// the vector dimension fixed at init(), and the tuning options.
import type { StoreRules } from '@keepgraph/core/ports';
import type { Driver } from 'neo4j-driver';
import type { RecentSizes } from './recent-sizes.ts';
import type { Reachability } from './retry.ts';

/** The state every operation receives; built once by init(). */
export interface StoreContext {
  driver: Driver;
  /** Database name; undefined means the server's default database. */
  database: string | undefined;
  dimensions: number;
  /** The engine's decisions this store applies in its transactions (the kit's STORE_RULES). */
  rules: StoreRules;
  /** Owners with fewer memories than this are searched by exact scoring. */
  exactSearchThreshold: number;
  /** How long an operation retries retriable errors, from its start, in ms (retry.ts). */
  retryMs: number;
  /** Whether an operation has given up on an unreachable database since the last success. */
  reach: Reachability;
  /** Memory counts a query read a moment ago, for the vector search to size itself by. */
  recentSizes: RecentSizes;
  /** Test hook called between the statements of a cascade transaction. */
  onCascadeStep: ((step: string) => Promise<void> | void) | undefined;
}
