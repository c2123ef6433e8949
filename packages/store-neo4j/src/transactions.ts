// One place that opens sessions and runs transactions. A transaction is
// retried whole on transient errors and connection loss (retry.ts: within
// the store's budget, and not at all once another operation has given up
// on an unreachable database), so every work function here must be a pure
// function of its inputs plus the database: no side effects outside the
// transaction except the test hook. A single read (readRows) runs as an
// auto-commit query, retried the same way.
import neo4j from 'neo4j-driver';
import type { ManagedTransaction, Record as Neo4jRecord, Session } from 'neo4j-driver';
import { retrying } from './retry.ts';
import type { StoreContext } from './store-context.ts';

/** A transaction handle as the operation modules see it: it runs queries, and only the runner commits. */
export type Tx = Pick<ManagedTransaction, 'run'>;

/** Run `work` in one write transaction (retried whole on transient errors). */
export function inWrite<T>(ctx: StoreContext, work: (tx: Tx) => Promise<T>): Promise<T> {
  return inTransaction(ctx, 'WRITE', work);
}

/** Run `work` in one read transaction. */
export function inRead<T>(ctx: StoreContext, work: (tx: Tx) => Promise<T>): Promise<T> {
  return inTransaction(ctx, 'READ', work);
}

function inTransaction<T>(
  ctx: StoreContext,
  mode: 'READ' | 'WRITE',
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  return retrying(ctx, () => inSession(ctx, mode, (session) => oneTransaction(session, work)));
}

/**
 * One attempt: begin, work, commit; rolled back on any failure. The
 * driver's managed transactions (executeWrite) would retry on the driver's
 * schedule inside ours, so the store begins and commits its own.
 */
async function oneTransaction<T>(session: Session, work: (tx: Tx) => Promise<T>): Promise<T> {
  const tx = session.beginTransaction();
  try {
    const out = await work(tx);
    await tx.commit();
    return out;
  } catch (e) {
    // The connection may be gone: the server rolls back what it never saw committed.
    if (tx.isOpen()) await tx.rollback().catch(() => undefined);
    throw e;
  }
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

/**
 * Run one read query and map each record to a plain object. It runs as an
 * auto-commit query (RUN and PULL: one round trip) rather than a
 * transaction (BEGIN, RUN and PULL, then COMMIT: two); one statement needs
 * no transaction around it, and a recall is made of such reads. It is
 * retried as transactions are.
 */
export function readRows<T>(
  ctx: StoreContext,
  query: string,
  params: Record<string, unknown>,
): Promise<T[]> {
  return retrying(ctx, () =>
    inSession(ctx, 'READ', async (session) => rows<T>(await session.run(query, params))),
  );
}

/** Run one read query (as readRows) that returns an `id` per record: the ids, in its order. */
export async function readIds(
  ctx: StoreContext,
  query: string,
  params: Record<string, unknown>,
): Promise<string[]> {
  return (await readRows<{ id: string }>(ctx, query, params)).map((r) => r.id);
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
