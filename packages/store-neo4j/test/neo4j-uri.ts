// Where the store-only tests find Neo4j: this Vitest worker's server, as
// test/global-setup.ts started it (or NEO4J_URI when given).
import { neo4jUri as workerNeo4jUri } from '../../../test/services.ts';

/** The Bolt URI of the Neo4j this test file uses. */
export async function neo4jUri(): Promise<string> {
  return workerNeo4jUri();
}

/** Kept for the test files' afterAll hooks: the global setup owns the server. */
export async function releaseNeo4j(): Promise<void> {}
