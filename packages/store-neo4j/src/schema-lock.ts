// The migration lease: one (:SchemaLock {ledger}) node per ledger, holding
// the current holder and an expiry. Schema commands cannot share a
// transaction with data writes in Neo4j, so a transaction-scoped lock cannot
// span a migration; instead the lease is taken atomically (the node is
// write-locked before it is read), renewed after every statement and
// released at the end. A crashed runner's lease simply expires.
import neo4j from 'neo4j-driver';
import type { Driver } from 'neo4j-driver';

/** Who asks for the lease, and for how long. */
export interface LeaseOptions {
  database?: string;
  ledger: string;
  holder: string;
  /** How long the lease lasts unless renewed (ms). */
  leaseMs: number;
}

/** Try once to take (or renew) the lease; true when `holder` now holds it. Times are the server's. */
export async function tryAcquireSchemaLock(driver: Driver, opts: LeaseOptions): Promise<boolean> {
  const session = driver.session({
    database: opts.database,
    defaultAccessMode: neo4j.session.WRITE,
  });
  try {
    const result = await session.executeWrite((tx) =>
      tx.run(
        `MERGE (l:SchemaLock {ledger: $ledger})
         SET l._lock = true
         REMOVE l._lock
         WITH l
         WHERE l.holder IS NULL OR l.expiresAtMs < timestamp() OR l.holder = $holder
         SET l.holder = $holder, l.expiresAtMs = timestamp() + $leaseMs
         RETURN l.holder AS holder`,
        { ledger: opts.ledger, holder: opts.holder, leaseMs: neo4j.int(opts.leaseMs) },
      ),
    );
    return result.records.length === 1;
  } finally {
    await session.close();
  }
}

/** Poll for the lease until `timeoutMs`; false when someone else kept it. */
export async function acquireSchemaLock(
  driver: Driver,
  opts: LeaseOptions & { timeoutMs: number; pollMs?: number },
): Promise<boolean> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (await tryAcquireSchemaLock(driver, opts)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
  }
}

/** Give the lease back (only if `holder` still holds it). */
export async function releaseSchemaLock(
  driver: Driver,
  opts: Pick<LeaseOptions, 'database' | 'ledger' | 'holder'>,
): Promise<void> {
  const session = driver.session({
    database: opts.database,
    defaultAccessMode: neo4j.session.WRITE,
  });
  try {
    await session.executeWrite((tx) =>
      tx.run(
        `MATCH (l:SchemaLock {ledger: $ledger}) WHERE l.holder = $holder
         REMOVE l.holder, l.expiresAtMs`,
        { ledger: opts.ledger, holder: opts.holder },
      ),
    );
  } finally {
    await session.close();
  }
}
