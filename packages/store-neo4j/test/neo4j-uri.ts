// Where the store-only tests find Neo4j: the Vitest global setup
// (test/global-setup.ts) provides NEO4J_URI, or the test server it started.
import { inject } from 'vitest';

/** The Bolt URI of the Neo4j this test run uses. */
export async function neo4jUri(): Promise<string> {
  return inject('neo4jUri');
}

/** Kept for the test files' afterAll hooks: the global setup owns the server. */
export async function releaseNeo4j(): Promise<void> {}
