// The two stores as the e2e tests reach them: the environment that points
// `keepgraph start` (or the CLI) at each, the selection an in-process
// runtime opens, and every file under a directory (for raw-byte checks).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreSelection } from '@keepgraph/runtime';
import { createNeo4jStore, type Neo4jMemoryStore } from '@keepgraph/store-neo4j';
import { rawContent } from '@keepgraph/store-neo4j/testing';
import { neo4jAuth, neo4jUri } from '../services.ts';

export type StoreName = 'sqlite' | 'neo4j';

/** KEEPGRAPH_STORE and, for Neo4j, the test run's server and credentials. */
export function storeEnv(store: StoreName): Record<string, string> {
  if (store === 'sqlite') return { KEEPGRAPH_STORE: 'sqlite' };
  const auth = neo4jAuth();
  return {
    KEEPGRAPH_STORE: 'neo4j',
    NEO4J_URI: neo4jUri(),
    ...(auth && { NEO4J_USER: auth.user, NEO4J_PASSWORD: auth.password }),
  };
}

/** The same store, for openEmbeddedRuntime in the test process. */
export function storeSelectionFor(store: StoreName): StoreSelection {
  if (store === 'sqlite') return { kind: 'sqlite' };
  return {
    kind: 'neo4j',
    uri: neo4jUri(),
    ...neo4jAuth(),
  };
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** The test run's Neo4j as a store, for reading beside a server (call init before use). */
export function testNeo4jStore(): Neo4jMemoryStore {
  return createNeo4jStore({
    uri: neo4jUri(),
    ...neo4jAuth(),
  });
}

/**
 * Every byte a server's store holds: the data directory's files and, on
 * Neo4j (whose files are the database server's), a dump of every node,
 * relationship and full-text document.
 */
export async function rawStoreBytes(store: StoreName, dataDir: string): Promise<Buffer> {
  const files = filesUnder(dataDir).map((p) => readFileSync(p));
  if (store === 'sqlite') return Buffer.concat(files);
  const probe = testNeo4jStore();
  try {
    await probe.init({ dimensions: 384 });
    return Buffer.concat([...files, await rawContent(probe)]);
  } finally {
    await probe.close();
  }
}
