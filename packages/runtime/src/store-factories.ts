// The stores a process can open, one row per kind: how its selection is read
// from the configuration, where it lives (as messages name it), whether it
// writes into the data directory, and how it opens. The runtime, backup and
// restore choose a store through this table only; adding a store kind is a
// row here (tsc refuses a kind of STORE_KINDS without one).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryStore } from '@keepgraph/core/ports';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import type { ServerConfig, StoreKind, StoreSelection } from './config.ts';
import { DATA_DIR_MODE } from './data-dir.ts';

/** The SQLite store's file in the data directory. */
export const SQLITE_FILE_NAME = 'keepgraph.db';

/**
 * How long a Neo4j operation waits for the database, from its start, while
 * it cannot be reached (or answers a transient error), in ms; as long as the
 * SQLite store waits out a lock. The driver's default, 30 s, held each HTTP
 * request 30 s per store call before the 503. Once one operation has given
 * up, the others try once without waiting until one succeeds (the store's
 * retry.ts), so a request with several store calls waits about this long.
 */
const NEO4J_RETRY_MS = 5000;

export interface StoreFactory<S extends StoreSelection = StoreSelection> {
  /** The selection the configuration (environment, flags) names. */
  fromConfig(config: ServerConfig): S;
  /** Where the store lives, as a message names it: "the SQLite store in DIR". */
  where(selection: S, dataDir: string): string;
  /** Whether the store writes into the data directory (a start then creates it). */
  usesDataDir: boolean;
  /** The store, opened and not yet initialised (init sizes it to the embedder). */
  open(selection: S, dataDir: string): Promise<MemoryStore>;
}

type Factories = { [K in StoreKind]: StoreFactory<Extract<StoreSelection, { kind: K }>> };

export const STORE_FACTORIES: Factories = {
  sqlite: {
    fromConfig: () => ({ kind: 'sqlite' }),
    where: (_s, dataDir) => `the SQLite store in ${dataDir}`,
    usesDataDir: true,
    async open(selection, dataDir) {
      await mkdir(dataDir, { recursive: true, mode: DATA_DIR_MODE });
      return createSqliteStore({ path: selection.path ?? join(dataDir, SQLITE_FILE_NAME) });
    },
  },
  neo4j: {
    fromConfig: (config) => ({
      kind: 'neo4j',
      uri: config.neo4jUri!,
      ...(config.neo4jUser !== undefined
        ? { user: config.neo4jUser, password: config.neo4jPassword ?? '' }
        : {}),
      ...(config.neo4jDatabase !== undefined ? { database: config.neo4jDatabase } : {}),
    }),
    where: (selection) => `Neo4j at ${selection.uri}`,
    usesDataDir: false,
    // Loaded when chosen: the driver is about 370 modules (226 of them
    // rxjs) that a command on the embedded store would load for nothing.
    open: async (selection) =>
      (await import('@keepgraph/store-neo4j')).createNeo4jStore({
        uri: selection.uri,
        ...(selection.user !== undefined
          ? { user: selection.user, password: selection.password ?? '' }
          : {}),
        ...(selection.database !== undefined ? { database: selection.database } : {}),
        maxTransactionRetryTimeMs: NEO4J_RETRY_MS,
      }),
  },
};

/** The row of a selection's kind. */
export function storeFactory(kind: StoreKind): StoreFactory {
  return STORE_FACTORIES[kind] as unknown as StoreFactory;
}

/** The store the configuration selects (KEEPGRAPH_STORE and its settings). */
export function storeSelection(config: ServerConfig): StoreSelection {
  return storeFactory(config.store).fromConfig(config);
}
