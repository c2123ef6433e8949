// The stores a runtime can open, by kind: apart from the configuration and
// the stores, so that a command line offers them as choices without loading
// either (@keepgraph/runtime/store-kinds; the CLI builds its commands at
// every start, `--help` included).

/** Stores the server can open: the embedded SQLite file store, or Neo4j. */
export const STORE_KINDS = ['sqlite', 'neo4j'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];
