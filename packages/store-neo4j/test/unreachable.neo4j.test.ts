// The Neo4j store while the database cannot be reached: one operation
// waits its budget and gives up with `store_unavailable`; after that the
// others try once and do not wait, until one succeeds; an operation that
// is waiting when the database comes back succeeds. The database "goes"
// by closing a TCP proxy between the store and a real Neo4j (connections
// refused, open ones cut), and "comes back" by listening again.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Neo4jMemoryStore } from '../src/index.ts';
import { batchOf, makeMemory, newOwner, openStore, randomUnitVector } from './helpers.ts';
import { neo4jUri, releaseNeo4j } from './neo4j-uri.ts';
import { TcpProxy } from './tcp-proxy.ts';

/** The store's wait for the database in this test, in ms. */
const BUDGET_MS = 2_000;

/** How long `op` took, and what it threw (undefined when it succeeded). */
async function timed(op: () => Promise<unknown>): Promise<{ ms: number; code?: string }> {
  const t = Date.now();
  try {
    await op();
    return { ms: Date.now() - t };
  } catch (e) {
    return { ms: Date.now() - t, code: (e as { code?: string }).code ?? String(e) };
  }
}

let proxy: TcpProxy;
let store: Neo4jMemoryStore;
let done: () => Promise<void>;
const owner = newOwner();
const write = () =>
  store.write(batchOf([{ memory: makeMemory(owner), embedding: randomUnitVector() }]));
const read = () => store.countMemories(owner);

beforeAll(async () => {
  proxy = new TcpProxy(await neo4jUri());
  await proxy.up();
  ({ store, done } = await openStore(proxy.uri, {
    maxTransactionRetryTimeMs: BUDGET_MS,
  }));
});
afterAll(async () => {
  await done();
  await proxy.down();
  await releaseNeo4j();
});

describe('Neo4j store, database unreachable', () => {
  it('waits one budget, then fails fast until the database answers again', async () => {
    await write();
    expect(await read()).toBe(1);

    await proxy.down();
    // The first operation waits for the database, within its budget.
    const first = await timed(write);
    expect(first.code).toBe('store_unavailable');
    expect(first.ms).toBeGreaterThanOrEqual(BUDGET_MS - 100);
    expect(first.ms).toBeLessThan(BUDGET_MS + 1_500);
    // The database has been found unreachable for a whole budget: the next
    // operations, reads and writes, try once and do not wait.
    const next = [await timed(read), await timed(write), await timed(read)];
    for (const r of next) {
      expect(r.code).toBe('store_unavailable');
      expect(r.ms).toBeLessThan(BUDGET_MS / 2);
    }

    await proxy.up();
    // Back: the first try succeeds, and nothing refused was written.
    const back = await timed(read);
    expect(back.code).toBeUndefined();
    expect(await read()).toBe(1);

    // A success ends the fast failing: an operation waits again, and one
    // waiting when the database comes back succeeds.
    await proxy.down();
    const waiting = timed(write);
    await sleep(BUDGET_MS / 3);
    await proxy.up();
    const r = await waiting;
    expect(r.code).toBeUndefined();
    expect(r.ms).toBeGreaterThanOrEqual(BUDGET_MS / 3 - 50);
    expect(await read()).toBe(2);
  }, 60_000);
});
