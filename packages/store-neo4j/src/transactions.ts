// One place that opens sessions and runs transactions. Managed
// transactions (executeRead/executeWrite) retry on transient errors and
// connection loss, re-running the whole work function, so every work
// function here must be a pure function of its inputs plus the database:
// no side effects outside the transaction except the test hook. A single
// read (readRows) runs as an auto-commit query, retried the same way.
import { setTimeout as sleep } from 'node:timers/promises';
import neo4j from 'neo4j-driver';
import type { ManagedTransaction, Record as Neo4jRecord, Session } from 'neo4j-driver';
import type { StoreContext } from './store-context.ts';

/** A transaction handle as the operation modules see it. */
export type Tx = ManagedTransaction;

/** Run `work` in one write transaction (retried whole on transient errors). */
export function inWrite<T>(ctx: StoreContext, work: (tx: Tx) => Promise<T>): Promise<T> {
  return inSession(ctx, 'WRITE', (session) => session.executeWrite(work));
}

/** Run `work` in one read transaction. */
export function inRead<T>(ctx: StoreContext, work: (tx: Tx) => Promise<T>): Promise<T> {
  return inSession(ctx, 'READ', (session) => session.executeRead(work));
}

async function inSession<T>(
  ctx: StoreContext,
  mode: 'READ' | 'WRITE',
  use: (session: Session) => Promise<T>,
): Promise<T> {
  const session = ctx.driver.session({
    database: ctx.database,
    defaultAccessMode: neo4j.session[mode],
  });
  try {
    return await use(session);
  } finally {
    await session.close();
  }
}

/** The driver's retry schedule for managed transactions: 1 s, doubling, ±20%. */
const FIRST_RETRY_MS = 1000;
const RETRY_JITTER = 0.2;

/**
 * Run one read query and map each record to a plain object. It runs as an
 * auto-commit query (RUN and PULL: one round trip) rather than a managed
 * transaction (BEGIN, RUN and PULL, then COMMIT: two); one statement needs
 * no transaction around it, and a recall is made of such reads. The managed
 * transaction's retry is kept: a retriable error (server unavailable,
 * transient) is retried on the driver's own schedule until `readRetryMs`
 * has passed, and then thrown as it was.
 */
export async function readRows<T>(
  ctx: StoreContext,
  query: string,
  params: Record<string, unknown>,
): Promise<T[]> {
  const started = Date.now();
  for (let delay = FIRST_RETRY_MS; ; delay *= 2) {
    try {
      return await inSession(ctx, 'READ', async (session) =>
        rows<T>(await session.run(query, params)),
      );
    } catch (e) {
      if (!neo4j.isRetriableError(e) || Date.now() - started >= ctx.readRetryMs) throw e;
    }
    await sleep(delay * (1 - RETRY_JITTER + 2 * RETRY_JITTER * Math.random()));
  }
}

/** Records of a result as plain objects keyed by the RETURN aliases. */
export function rows<T>(result: { records: Neo4jRecord[] }): T[] {
  return result.records.map((r) => r.toObject() as T);
}

/**
 * A Cypher INTEGER parameter (LIMIT, SKIP, procedure k). JavaScript numbers
 * travel as FLOAT, which LIMIT refuses.
 */
export function int(n: number): ReturnType<typeof neo4j.int> {
  return neo4j.int(Math.trunc(n));
}

/**
 * A number read back from Neo4j. The store's own driver returns plain
 * numbers (disableLosslessIntegers), but a caller-supplied driver may
 * return Integer objects.
 */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (neo4j.isInt(v)) return (v as { toNumber(): number }).toNumber();
  if (typeof v === 'bigint') return Number(v);
  return Number(v);
}
