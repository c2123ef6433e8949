// The services a test file talks to, as the Vitest global setup started
// them (test/global-setup.ts). Each Vitest worker has a Neo4j server of its
// own: a `keepgraph start` over Neo4j relays every owner's outbox and re-
// embeds every owner's memories for its model, so two files running at once
// must never share one. Files on one worker run one after another, as the
// whole suite once did on one server. Redis is shared: every test keeps its
// queues under a prefix of its own.
import { inject } from 'vitest';

/** This worker's index among the run's workers, from 0 (Vitest numbers its pool from 1). */
function workerIndex(): number {
  const id = Number(process.env.VITEST_POOL_ID ?? '1');
  const uris = inject('neo4jUris');
  if (!Number.isInteger(id) || id < 1 || id > uris.length) {
    throw new Error(
      `VITEST_POOL_ID ${process.env.VITEST_POOL_ID} has no Neo4j server of its own (the run started ${uris.length})`,
    );
  }
  return id - 1;
}

/** The Bolt URI of this worker's Neo4j. */
export function neo4jUri(): string {
  return inject('neo4jUris')[workerIndex()]!;
}

/** Credentials for it, when NEO4J_USER was given (none for the test servers). */
export function neo4jAuth(): { user: string; password: string } | undefined {
  return inject('neo4jUser')
    ? { user: inject('neo4jUser'), password: inject('neo4jPassword') }
    : undefined;
}

/** The run's Redis. */
export function redisUrl(): string {
  return inject('redisUrl');
}

/**
 * A port for a Neo4j server a test starts for itself (a restore replaces a
 * whole database): one per worker, beside the worker's own server.
 */
export function privateNeo4jPort(): number {
  return inject('neo4jPrivatePorts')[workerIndex()]!;
}
