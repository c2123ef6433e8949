// The in-memory vector index inside the SQLite store: kept in step with the
// vector table by the process that writes, rebuilt or wiped when another
// connection changes the owner's vectors, untouched by a rolled-back write,
// and free of a deleted vector in search, in trace probes and in its bytes.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore, type IndexEntry, type SqliteMemoryStore } from '../src/index.ts';
import { Statements } from '../src/queries.ts';
import { fromChunks, throughVec0 } from '../src/vector-index/vec0-chunks.ts';
import {
  DIM,
  NOW,
  auditEvent,
  batchOf,
  makeMemory,
  newOwner,
  randomUnitVector,
  tempDir,
} from './helpers.ts';

let dir: string;
let cleanup: () => void;
const open: SqliteMemoryStore[] = [];
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanup();
});

async function storeAt(path: string, vectorIndexMinVectors?: number): Promise<SqliteMemoryStore> {
  const store = createSqliteStore({
    path,
    ...(vectorIndexMinVectors === undefined ? {} : { vectorIndexMinVectors }),
  });
  await store.init({ dimensions: DIM });
  open.push(store);
  return store;
}

const opts = { limit: 10, now: NOW };
const forget = (store: SqliteMemoryStore, owner: string, id: string) =>
  store.deleteCascade({
    ownerId: owner,
    rootIds: [id],
    reason: 'forget',
    at: NOW,
    audit: [auditEvent('delete', owner, [id])],
  });

/** Owner with three memories along distinct random directions. */
async function seeded(store: SqliteMemoryStore) {
  const owner = newOwner();
  const ms = [0, 1, 2].map((i) => ({
    memory: makeMemory(owner, { text: `m ${i}` }),
    v: randomUnitVector(),
  }));
  await store.write(batchOf(ms.map(({ memory, v }) => ({ memory, embedding: v }))));
  return { owner, ms };
}

describe('vector index in the SQLite store', () => {
  it('serves an owner over the threshold and forgets a deleted vector everywhere it looks', async () => {
    const store = await storeAt(join(dir, 'kg.db'), 0);
    const { owner, ms } = await seeded(store);
    const [gone, kept] = [ms[0]!, ms[1]!];
    expect((await store.searchVector(owner, gone.v, opts))[0]!.id).toBe(gone.memory.id);
    const index = (await store.heldVectorIndex(owner))!;
    expect(index.size).toBe(3);
    const stored = index.storedVector(gone.memory.id)!;
    const bytes = Buffer.from(stored.buffer);
    expect(await store.findTraces(owner, [gone.memory.id], [])).toContainEqual(
      expect.objectContaining({ where: 'vector_index', id: gone.memory.id }),
    );

    await forget(store, owner, gone.memory.id);
    const hits = await store.searchVector(owner, gone.v, opts);
    expect(hits.map((h) => h.id)).not.toContain(gone.memory.id);
    expect(hits.map((h) => h.id)).toContain(kept.memory.id);
    expect(index.has(gone.memory.id)).toBe(false);
    for (const raw of index.rawBuffers()) expect(Buffer.from(raw).indexOf(bytes)).toBe(-1);
    expect(await store.findTraces(owner, [gone.memory.id], [])).toEqual([]);
    // A write after the build reaches the held index without a rebuild.
    const added = makeMemory(owner, { text: 'added' });
    const v = randomUnitVector();
    await store.write(batchOf([{ memory: added, embedding: v }]));
    expect(await store.heldVectorIndex(owner)).toBe(index);
    expect((await store.searchVector(owner, v, opts))[0]!.id).toBe(added.id);
  });

  it('sees what another connection wrote or deleted, and wipes what it deleted from memory', async () => {
    const path = join(dir, 'kg.db');
    const a = await storeAt(path, 0);
    const b = await storeAt(path, 0);
    const { owner, ms } = await seeded(a);
    await a.searchVector(owner, ms[0]!.v, opts);
    const held = (await a.heldVectorIndex(owner))!;

    const other = makeMemory(owner, { text: 'from the other process' });
    const v = randomUnitVector();
    await b.write(batchOf([{ memory: other, embedding: v }]));
    expect((await a.searchVector(owner, v, opts))[0]!.id).toBe(other.id);

    const rebuilt = (await a.heldVectorIndex(owner))!;
    await forget(b, owner, ms[1]!.memory.id);
    // The stale index is wiped as soon as this connection looks, search or not.
    expect(await a.heldVectorIndex(owner)).toBeNull();
    expect(rebuilt.size).toBe(0);
    expect(held.size).toBe(0);
    expect((await a.searchVector(owner, ms[1]!.v, opts)).map((h) => h.id)).not.toContain(
      ms[1]!.memory.id,
    );
    expect(await a.findTraces(owner, [ms[1]!.memory.id], [])).toEqual([]);
  });

  it('leaves the index as it was when a write rolls back after inserting a vector', async () => {
    const store = await storeAt(join(dir, 'kg.db'), 0);
    const { owner, ms } = await seeded(store);
    await store.searchVector(owner, ms[0]!.v, opts);
    const fresh = makeMemory(owner, { text: 'never committed' });
    const v = randomUnitVector();
    // The second memory reuses an existing id: the batch fails after the first vector went in.
    await expect(
      store.write(
        batchOf([
          { memory: fresh, embedding: v },
          { memory: ms[0]!.memory, embedding: v },
        ]),
      ),
    ).rejects.toThrow();
    expect((await store.heldVectorIndex(owner))!.has(fresh.id)).toBe(false);
    expect((await store.searchVector(owner, v, opts)).map((h) => h.id)).not.toContain(fresh.id);
  });

  it('reads vec0 chunk tables whole exactly as vec0 reads them row by row', async () => {
    const path = join(dir, 'kg.db');
    const store = await storeAt(path, 0);
    const owner = newOwner();
    const other = newOwner();
    // Three owners' writes interleaved, several chunks each, holes from deletions.
    const mine: string[] = [];
    for (let b = 0; b < 4; b++) {
      const ms = Array.from({ length: 150 }, (_, i) =>
        makeMemory(owner, {
          text: `mine ${b} ${i}`,
          expiresAt: `2031-01-0${1 + (i % 9)}T00:00:00.000Z`,
        }),
      );
      mine.push(...ms.map((m) => m.id));
      await store.write(batchOf(ms));
      await store.write(batchOf([makeMemory(other, { text: `theirs ${b}` })]));
    }
    for (const id of [mine[0]!, mine[300]!, mine[599]!]) await forget(store, owner, id);
    const db = new Database(path, { readonly: true });
    sqliteVec.load(db);
    const st = new Statements(db);
    const byId = (xs: IndexEntry[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));
    const fast = fromChunks(st, owner, DIM)!;
    expect(fast).toHaveLength(597);
    expect(byId(fast)).toEqual(byId(throughVec0(st, owner)));
    db.close();
    await store.searchVector(owner, randomUnitVector(), opts);
    expect((await store.heldVectorIndex(owner))!.size).toBe(597);
  });

  it('keeps small owners on sqlite-vec by default', async () => {
    const store = await storeAt(join(dir, 'kg.db'));
    const { owner, ms } = await seeded(store);
    expect((await store.searchVector(owner, ms[2]!.v, opts))[0]!.id).toBe(ms[2]!.memory.id);
    expect(await store.heldVectorIndex(owner)).toBeNull();
  });

  it('counts the vectors of a store made before owner_vectors existed when it opens', async () => {
    const path = join(dir, 'kg.db');
    const first = await storeAt(path, 0);
    const { owner } = await seeded(first);
    await first.close();
    open.splice(0);
    const db = new Database(path);
    db.prepare('DELETE FROM owner_vectors').run();
    db.prepare("DELETE FROM meta WHERE key IN ('owner_vectors_seeded', 'vector_epoch')").run();
    db.close();
    const again = await storeAt(path, 0);
    const check = new Database(path, { readonly: true });
    expect(
      check.prepare('SELECT vectors FROM owner_vectors WHERE owner_id = ?').pluck().get(owner),
    ).toBe(3);
    check.close();
    await again.searchVector(owner, randomUnitVector(), opts);
    expect((await again.heldVectorIndex(owner))!.size).toBe(3);
  });
});
