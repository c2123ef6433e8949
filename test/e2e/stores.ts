// The two stores as the e2e tests reach them: the environment that points
// `keepgraph start` (or the CLI) at each, the selection an in-process
// runtime opens, and every file under a directory (for raw-byte checks).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { StoreSelection } from '@keepgraph/runtime';

export type StoreName = 'sqlite' | 'neo4j';

/** KEEPGRAPH_STORE and, for Neo4j, the test run's server and credentials. */
export function storeEnv(store: StoreName): Record<string, string> {
  if (store === 'sqlite') return { KEEPGRAPH_STORE: 'sqlite' };
  return {
    KEEPGRAPH_STORE: 'neo4j',
    NEO4J_URI: inject('neo4jUri'),
    ...(inject('neo4jUser')
      ? { NEO4J_USER: inject('neo4jUser'), NEO4J_PASSWORD: inject('neo4jPassword') }
      : {}),
  };
}

/** The same store, for openEmbeddedRuntime in the test process. */
export function storeSelectionFor(store: StoreName): StoreSelection {
  if (store === 'sqlite') return { kind: 'sqlite' };
  return {
    kind: 'neo4j',
    uri: inject('neo4jUri'),
    ...(inject('neo4jUser')
      ? { user: inject('neo4jUser'), password: inject('neo4jPassword') }
      : {}),
  };
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
