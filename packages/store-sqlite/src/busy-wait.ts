// Waiting out another process's lock without stopping this one. SQLite's
// own busy handler sleeps inside the call, and better-sqlite3 calls are
// synchronous: while another process (a second API process, a worker, a
// backup) held the write lock, every statement that waited stopped the whole
// server for up to the busy timeout, /healthz included, one request after
// another. So once the store is open its connection waits 0 ms, and an
// operation that found the database locked before it changed anything is
// run again after a pause, on a timer, until the busy timeout has passed;
// then it fails as before (`store_unavailable`). An operation that had
// changed something before the lock stopped it is never run twice.
//
// The WAL checkpoint after a deletion (forgotten text out of the log) is
// waited for the same way: it is tried once the deletion has committed and
// again on a timer while another connection keeps it from completing.
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { STORE_OPERATIONS, type StoreOperations } from '@keepgraph/core/ports';
import type { Db } from './open-database.ts';
import type { StoreContext } from './store-context.ts';

/** The pauses SQLite's own busy handler takes, in ms; the last repeats. */
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100] as const;

const changeCounters = new WeakMap<Db, Database.Statement>();

/** Rows this connection has changed since it opened (SQLite's total_changes()). */
function totalChanges(db: Db): number {
  let st = changeCounters.get(db);
  if (!st) {
    st = db.prepare('SELECT total_changes()').pluck();
    changeCounters.set(db, st);
  }
  return st.get() as number;
}

function isBusy(e: unknown): boolean {
  return e instanceof Database.SqliteError && e.code.startsWith('SQLITE_BUSY');
}

/** Copy the WAL into the main file and truncate it; false while another connection keeps it from completing. */
export function truncateWal(db: Db): boolean {
  const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  return row?.busy === 0;
}

/**
 * Run `attempt` (a synchronous operation) until it does not meet a lock,
 * pausing between tries, for at most `ctx.busyTimeoutMs`.
 */
async function runWaitingOutLocks<T>(ctx: StoreContext, attempt: () => T): Promise<T> {
  const started = Date.now();
  for (let i = 0; ; i++) {
    const before = totalChanges(ctx.db);
    try {
      return attempt();
    } catch (e) {
      const waited = Date.now() - started;
      if (
        !isBusy(e) ||
        ctx.db.inTransaction ||
        totalChanges(ctx.db) !== before ||
        waited >= ctx.busyTimeoutMs
      )
        throw e;
      await sleep(
        Math.min(PAUSES_MS[Math.min(i, PAUSES_MS.length - 1)]!, ctx.busyTimeoutMs - waited),
      );
    }
  }
}

/**
 * Truncate the WAL a deletion asked for. The deleting operation waits for
 * it up to the busy timeout; any later operation tries once, so a truncation
 * another connection held up still happens as soon as it can.
 */
async function settleWal(ctx: StoreContext, wait: boolean): Promise<void> {
  const started = Date.now();
  for (let i = 0; ctx.wal.pending; i++) {
    if (truncateWal(ctx.db)) {
      ctx.wal.pending = false;
      return;
    }
    const waited = Date.now() - started;
    if (!wait || waited >= ctx.busyTimeoutMs) return;
    await sleep(
      Math.min(PAUSES_MS[Math.min(i, PAUSES_MS.length - 1)]!, ctx.busyTimeoutMs - waited),
    );
  }
}

/** The port's operations, each waiting out another process's lock as described above. */
export function waitingOutLocks(
  operations: StoreOperations<StoreContext>,
): StoreOperations<StoreContext> {
  const wrapped: Record<string, unknown> = { ...operations };
  for (const name of STORE_OPERATIONS) {
    const op = operations[name] as (ctx: StoreContext, ...args: unknown[]) => unknown;
    wrapped[name] = async (ctx: StoreContext, ...args: unknown[]) => {
      const asks = ctx.wal.asks;
      const result = await runWaitingOutLocks(ctx, () => op(ctx, ...args));
      if (ctx.wal.pending) await settleWal(ctx, ctx.wal.asks !== asks);
      return result;
    };
  }
  return wrapped as StoreOperations<StoreContext>;
}
