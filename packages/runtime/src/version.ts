// What version of KeepGraph runs, in one place for `keepgraph --version`,
// /healthz, the OpenAPI document and the keepgraph_info metric: the
// package's version, and the schema version each store's migrations bring
// a data directory to. A built package has the version compiled in
// (scripts/bundle-cli.ts defines process.env.KEEPGRAPH_PACKAGE_VERSION);
// from a checkout it is read from this package's package.json (the
// workspace's packages are versioned together), so the two never disagree.
import { readFileSync } from 'node:fs';
import {
  NEO4J_MIGRATIONS_DIR,
  SQLITE_MIGRATIONS_DIR,
  highestMigrationVersion,
} from '@keepgraph/graph-schema';

export const KEEPGRAPH_VERSION: string =
  process.env.KEEPGRAPH_PACKAGE_VERSION ??
  (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

/** The schema version this code migrates each store to: its highest migration file. */
export function schemaVersions(): { sqlite: number; neo4j: number } {
  return {
    sqlite: highestMigrationVersion(SQLITE_MIGRATIONS_DIR, 'sql'),
    neo4j: highestMigrationVersion(NEO4J_MIGRATIONS_DIR, 'cypher'),
  };
}

/** What `keepgraph --version` prints: the version, then the stores' schema versions. */
export function versionReport(): string {
  const s = schemaVersions();
  return `${KEEPGRAPH_VERSION}\nschema: sqlite ${s.sqlite}, neo4j ${s.neo4j}`;
}
