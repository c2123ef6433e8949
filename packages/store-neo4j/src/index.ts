// Public surface of @keepgraph/store-neo4j: the store factory, the migration
// runner (for the CLI's `migrate` command and tests) and the query builder.
export {
  createNeo4jStore,
  Neo4jMemoryStore,
  DEFAULT_EXACT_SEARCH_THRESHOLD,
} from './neo4j-store.ts';
export type { Neo4jStoreOptions } from './neo4j-store.ts';
export {
  migrate,
  readMigrations,
  migrationChecksum,
  splitStatements,
  DEFAULT_LEDGER,
} from './migrate.ts';
export type { MigrationFile, MigrationResult, MigrateOptions } from './migrate.ts';
export { acquireSchemaLock, releaseSchemaLock, tryAcquireSchemaLock } from './schema-lock.ts';
export type { LeaseOptions } from './schema-lock.ts';
export { toLuceneQuery } from './fulltext-query.ts';
export type { VectorPath } from './search.ts';
