// How long one store operation waits for the database, and what the store
// remembers once an operation has given up on it.
//
// The driver's managed transactions retry on their own schedule (1 s,
// doubling, ±20%) while less than the retry time has passed since the
// first failure, and the next attempt may start well after it: with 5 s,
// attempts at 0, 1, 3 and 7 s, so an operation waited up to about 8.4 s.
// An HTTP write makes up to three store calls (claim its idempotency key,
// write, release the key on failure), and each waited that long: requests
// sent as Neo4j stopped took 9-12 s and some, reaching the database as it
// came back, were written after the client had waited through the whole
// outage. Here the budget is counted from the operation's start and no
// wait goes past it; and once one operation has given up on an
// unreachable database, every operation tries once and does not wait,
// until one succeeds. So a request waits at most about one budget for a
// database that is down, whatever number of store calls it makes.
import { setTimeout as sleep } from 'node:timers/promises';
import neo4j, { Neo4jError } from 'neo4j-driver';

/** The driver's retry schedule for managed transactions: 1 s, doubling, ±20%. */
const FIRST_RETRY_MS = 1000;
const RETRY_JITTER = 0.2;

/** Codes that say the database cannot be reached, as opposed to a deadlock or a lock wait. */
const UNREACHABLE = new Set([
  'ServiceUnavailable',
  'SessionExpired',
  'Neo.TransientError.General.DatabaseUnavailable',
]);

/** True when `e` says the database cannot be reached (connection refused or lost, database stopping). */
function isUnreachable(e: unknown): boolean {
  return e instanceof Neo4jError && UNREACHABLE.has(e.code);
}

/** Shared by a store's operations: true from one giving up on an unreachable database until the next success. */
export interface Reachability {
  givenUp: boolean;
}

/** How long an operation waits for the database, in ms, and what the store's operations share. */
export interface RetryBudget {
  retryMs: number;
  reach: Reachability;
}

/**
 * Run `attempt` until it succeeds, retrying retriable errors (connection
 * loss, transient errors) on the driver's schedule within `retryMs` of the
 * start; a wait never goes past the budget. Attempts run the whole work
 * again, so `attempt` must be safe to repeat (a transaction is). When the
 * database is unreachable and another operation has already given up on it,
 * the error is thrown at once.
 */
export async function retrying<T>(
  { retryMs, reach }: RetryBudget,
  attempt: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  for (let delay = FIRST_RETRY_MS; ; delay *= 2) {
    try {
      const out = await attempt();
      reach.givenUp = false;
      return out;
    } catch (e) {
      if (!neo4j.isRetriableError(e)) throw e;
      const unreachable = isUnreachable(e);
      if (unreachable && reach.givenUp) throw e;
      const left = retryMs - (Date.now() - started);
      if (left <= 0) {
        if (unreachable) reach.givenUp = true;
        throw e;
      }
      await sleep(Math.min(left, delay * (1 - RETRY_JITTER + 2 * RETRY_JITTER * Math.random())));
    }
  }
}
