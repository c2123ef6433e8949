// Another connection holding the write lock (a second process, a backup):
// the store waits it out on a timer, so the process keeps running meanwhile
// (the lock here is released by a timer of this very process, which could
// never fire while a call waited inside SQLite), gives up after its busy
// timeout with `store_unavailable` having written nothing, and truncates the
// WAL after a deletion once the other connection lets it.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isKeepGraphError } from '@keepgraph/core';
import type { StoreOperations } from '@keepgraph/core/ports';
import { waitingOutLocks } from '../src/busy-wait.ts';
import { createSqliteStore, type SqliteMemoryStore } from '../src/index.ts';
import { openDatabase, type Db } from '../src/open-database.ts';
import type { StoreContext } from '../src/store-context.ts';
import { DIM, batchOf, forgetRequest, makeMemory, newOwner, tempDir } from './helpers.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  busyTimeoutMs: number,
): Promise<{ store: SqliteMemoryStore; other: Db; path: string }> {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'kg.db');
  const store = createSqliteStore({ path, busyTimeoutMs });
  await store.init({ dimensions: DIM });
  const other = openDatabase({ path, busyTimeoutMs: 0 });
  cleanups.push(
    cleanup,
    () => store.close(),
    () => void other.close(),
  );
  return { store, other, path };
}

/** The longest gap between ticks of a 5 ms interval while `work` runs, and its result. */
async function longestStall<T>(
  work: () => Promise<T>,
): Promise<{ stallMs: number; result: PromiseSettledResult<T> }> {
  let last = performance.now();
  let stallMs = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  try {
    const [result] = await Promise.allSettled([work()]);
    // A call that blocked and then failed may end before any tick.
    return { stallMs: Math.max(stallMs, performance.now() - last), result: result! };
  } finally {
    clearInterval(tick);
  }
}

describe('another connection holding the write lock', () => {
  it('is waited out on a timer: the write lands once the lock goes, the event loop never stalls', async () => {
    const { store, other } = await setup(5000);
    const owner = newOwner();
    const m = makeMemory(owner);
    other.exec('BEGIN EXCLUSIVE');
    const release = setTimeout(() => other.exec('ROLLBACK'), 300);
    cleanups.push(() => clearTimeout(release));
    const t0 = performance.now();
    const { stallMs, result } = await longestStall(() => store.write(batchOf([m])));
    expect(result.status).toBe('fulfilled');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(stallMs).toBeLessThan(150);
    expect((await store.getById(owner, m.id))?.text).toBe(m.text);
  });

  it('past the busy timeout: store_unavailable, nothing written, and no stall while waiting', async () => {
    const { store, other } = await setup(300);
    const owner = newOwner();
    const m = makeMemory(owner);
    other.exec('BEGIN EXCLUSIVE');
    const t0 = performance.now();
    const { stallMs, result } = await longestStall(() => store.write(batchOf([m])));
    const waited = performance.now() - t0;
    other.exec('ROLLBACK');
    expect(result.status).toBe('rejected');
    const e = (result as PromiseRejectedResult).reason as unknown;
    expect(isKeepGraphError(e) && e.code).toBe('store_unavailable');
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(3000);
    expect(stallMs).toBeLessThan(150);
    expect(await store.getById(owner, m.id)).toBeNull();
    // The lock gone, the same write goes through.
    await store.write(batchOf([m]));
    expect((await store.getById(owner, m.id))?.text).toBe(m.text);
  });

  it('a deletion truncates the WAL once a reader that held it finishes, without a stall', async () => {
    const { store, other, path } = await setup(5000);
    const owner = newOwner();
    const m = makeMemory(owner);
    await store.write(batchOf([m]));
    // A read transaction keeps the WAL from being reset.
    other.exec('BEGIN');
    other.prepare('SELECT count(*) FROM memories').get();
    const release = setTimeout(() => other.exec('COMMIT'), 300);
    cleanups.push(() => clearTimeout(release));
    const { stallMs, result } = await longestStall(() =>
      store.deleteCascade(forgetRequest(owner, [m.id])),
    );
    expect(result.status).toBe('fulfilled');
    expect(stallMs).toBeLessThan(150);
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(await store.getById(owner, m.id)).toBeNull();
  });

  it('an operation that changed a row before it met the lock is not run again', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const db = openDatabase({ path: join(dir, 'plain.db'), busyTimeoutMs: 0 });
    const other = openDatabase({ path: join(dir, 'plain.db'), busyTimeoutMs: 0 });
    cleanups.push(
      () => void db.close(),
      () => void other.close(),
    );
    db.exec('CREATE TABLE t (x INTEGER)');
    let runs = 0;
    // One row on its own, then a transaction that meets the lock.
    const ops = waitingOutLocks({
      write: (ctx: StoreContext) => {
        runs++;
        ctx.db.prepare('INSERT INTO t VALUES (1)').run();
        other.exec('BEGIN EXCLUSIVE');
        ctx.db.transaction(() => ctx.db.prepare('INSERT INTO t VALUES (2)').run()).immediate();
      },
    } as unknown as StoreOperations<StoreContext>);
    const ctx = {
      db,
      busyTimeoutMs: 2000,
      wal: { pending: false, asks: 0 },
    } as unknown as StoreContext;
    await expect(ops.write(ctx, batchOf([]))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.exec('ROLLBACK');
    expect(runs).toBe(1);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
  });
});
