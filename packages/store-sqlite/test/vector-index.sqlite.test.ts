// The in-memory vector index inside the SQLite store: kept in step with the
// vector table by the process that writes, rebuilt or wiped when another
// connection changes the owner's vectors, untouched by a rolled-back write,
// and free of a deleted vector in search, in trace probes and in its bytes.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteMemoryStore } from '../src/index.ts';
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

  it('moves the vectors of a store made with a vec0 table into memory_vectors when it opens', async () => {
    const path = join(dir, 'kg.db');
    const first = await storeAt(path);
    const owner = newOwner();
    const ms = Array.from({ length: 40 }, (_, i) => ({
      memory: makeMemory(owner, {
        text: `old ${i}`,
        expiresAt: `2031-01-0${1 + (i % 9)}T00:00:00.000Z`,
      }),
      embedding: randomUnitVector(),
    }));
    await first.write(batchOf(ms));
    await first.close();
    open.splice(0);

    // The layout before migration 0011: the vectors in a vec0 table.
    const db = new Database(path);
    sqliteVec.load(db);
    const rows = db.prepare('SELECT * FROM memory_vectors').all() as {
      memory_id: string;
      owner_id: string;
      embedding: Buffer;
      expires_ms: number;
      valid_from_ms: number;
    }[];
    db.exec(`CREATE VIRTUAL TABLE memory_vec USING vec0 (
      memory_id TEXT PRIMARY KEY, owner_id TEXT PARTITION KEY,
      embedding FLOAT[${DIM}] DISTANCE_METRIC=cosine,
      expires_ms INTEGER, valid_from_ms INTEGER, chunk_size = 256)`);
    const put = db.prepare(
      'INSERT INTO memory_vec (memory_id, owner_id, embedding, expires_ms, valid_from_ms) VALUES (?, ?, ?, ?, ?)',
    );
    for (const r of rows)
      put.run(r.memory_id, r.owner_id, r.embedding, BigInt(r.expires_ms), BigInt(r.valid_from_ms));
    db.exec('DROP TABLE memory_vectors');
    db.prepare('DELETE FROM schema_migrations WHERE version = 11').run();
    db.close();

    const again = await storeAt(path);
    const check = new Database(path, { readonly: true });
    const moved = check
      .prepare(
        'SELECT memory_id, owner_id, embedding, expires_ms, valid_from_ms FROM memory_vectors',
      )
      .all();
    const sort = (xs: unknown[]) =>
      [...(xs as { memory_id: string }[])].sort((a, b) => a.memory_id.localeCompare(b.memory_id));
    expect(sort(moved)).toEqual(sort(rows));
    expect(
      check
        .prepare(
          "SELECT name FROM sqlite_master WHERE name LIKE 'memory_vec%' AND name != 'memory_vectors' AND name NOT LIKE 'memory_vectors_%'",
        )
        .all(),
    ).toEqual([]);
    check.close();
    const target = ms[17]!;
    expect((await again.searchVector(owner, target.embedding, opts))[0]!.id).toBe(target.memory.id);
  });

  it('lets the least recently searched index go once the indexes hold more than their budget', async () => {
    const path = join(dir, 'kg.db');
    // One owner's index of three 8-d vectors takes a few hundred bytes: a
    // budget of one byte holds only the index just searched.
    const store = createSqliteStore({ path, vectorIndexMinVectors: 0, vectorIndexMaxBytes: 1 });
    await store.init({ dimensions: DIM });
    open.push(store);
    const a = await seeded(store);
    const b = await seeded(store);
    expect((await store.searchVector(a.owner, a.ms[0]!.v, opts))[0]!.id).toBe(a.ms[0]!.memory.id);
    expect(await store.heldVectorIndex(a.owner)).not.toBeNull();
    expect((await store.searchVector(b.owner, b.ms[1]!.v, opts))[0]!.id).toBe(b.ms[1]!.memory.id);
    expect(await store.heldVectorIndex(b.owner)).not.toBeNull();
    expect(await store.heldVectorIndex(a.owner)).toBeNull();
    // Searched again, the owner's index is rebuilt and answers as before.
    expect((await store.searchVector(a.owner, a.ms[2]!.v, opts))[0]!.id).toBe(a.ms[2]!.memory.id);
    expect(await store.heldVectorIndex(b.owner)).toBeNull();

    // A budget that holds both keeps both.
    const roomy = createSqliteStore({ path, vectorIndexMinVectors: 0 });
    await roomy.init({ dimensions: DIM });
    open.push(roomy);
    await roomy.searchVector(a.owner, a.ms[0]!.v, opts);
    await roomy.searchVector(b.owner, b.ms[0]!.v, opts);
    expect(await roomy.heldVectorIndex(a.owner)).not.toBeNull();
    expect(await roomy.heldVectorIndex(b.owner)).not.toBeNull();
  });

  it('keeps small owners on the exact scan by default', async () => {
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
