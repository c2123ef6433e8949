// Migrations: applied once, in order, recorded in the ledger; idempotent;
// a changed applied file is refused; the vector dimension is fixed at init.
import { appendFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isKeepGraphError } from '@keepgraph/core';
import type { Memory } from '@keepgraph/core';
import type { MemoryStore } from '@keepgraph/core/ports';
import { memoryFixture } from '@keepgraph/core/testing';
import { SQLITE_MIGRATIONS_DIR } from '@keepgraph/graph-schema';
import { createSqliteStore, migrate, readMigrations } from '../src/index.ts';
import type { SqliteMemoryStore } from '../src/index.ts';
import { openDatabase } from '../src/open-database.ts';
import type { Db, OpenOptions } from '../src/open-database.ts';
import { tempDir } from './helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** Write memories without embeddings, as a store made before a migration held them. */
async function writeMemories(store: MemoryStore, memories: Memory[]): Promise<void> {
  await store.write({
    memories: memories.map((memory) => ({ memory, embedding: null })),
    supersede: [],
    sessionMessages: [],
    audit: [],
  });
}

function scratch(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A scratch dir holding a copy of the shipped migrations (`migrations`), to edit or add to. */
function copiedMigrations(): { dir: string; migrations: string } {
  const dir = scratch();
  const migrations = join(dir, 'migrations');
  cpSync(SQLITE_MIGRATIONS_DIR, migrations, { recursive: true });
  return { dir, migrations };
}

/** Open a connection (no store around it), run `body` on it, close it. */
function withDatabase(open: OpenOptions, body: (db: Db) => void): void {
  const db = openDatabase(open);
  try {
    body(db);
  } finally {
    db.close();
  }
}

/** The store at `path` initialised (8 dimensions) for `body`, then closed. */
async function withStore(
  path: string,
  body: (store: SqliteMemoryStore) => Promise<void> = async () => {},
): Promise<void> {
  const store = createSqliteStore({ path });
  await store.init({ dimensions: 8 });
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

/**
 * Take the database at `path` back to before migration `version` (`undo`
 * reverts what it made, the ledger forgets it), migrate, and expect that
 * migration and only it applied again; `check` reads the migrated database.
 */
function remigrate(
  path: string,
  version: number,
  undo: (db: Db) => void,
  check: (db: Db) => void = () => {},
): void {
  withDatabase({ path }, (db) => {
    undo(db);
    db.prepare('DELETE FROM schema_migrations WHERE version = ?').run(version);
    expect(migrate(db).applied).toEqual([version]);
    check(db);
  });
}

describe('migrate', () => {
  it('applies every migration once, in order, and records it in the ledger', () => {
    withDatabase({ path: join(scratch(), 'a.db') }, (db) => {
      const files = readMigrations();
      expect(files.map((f) => f.version)).toEqual(files.map((_, i) => i + 1));
      const first = migrate(db);
      expect(first.applied).toEqual(files.map((f) => f.version));
      expect(first.current).toBe(files.length);

      const again = migrate(db);
      expect(again.applied).toEqual([]);
      expect(again.current).toBe(files.length);

      const ledger = db
        .prepare(
          'SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version',
        )
        .all() as {
        version: number;
        name: string;
        checksum: string;
      }[];
      expect(ledger.map((r) => [r.version, r.name, r.checksum])).toEqual(
        files.map((f) => [f.version, f.name, f.checksum]),
      );
    });
  });

  it('is idempotent across connections to the same file', () => {
    const path = join(scratch(), 'b.db');
    withDatabase({ path }, (a) =>
      withDatabase({ path }, (b) => {
        expect(migrate(a).applied.length).toBeGreaterThan(0);
        expect(migrate(b).applied).toEqual([]);
      }),
    );
  });

  it('waits for the write lock: a second process cannot migrate while another holds it', () => {
    const path = join(scratch(), 'lock.db');
    withDatabase({ path }, (holder) =>
      withDatabase({ path, busyTimeoutMs: 50 }, (waiter) => {
        holder.exec('BEGIN IMMEDIATE');
        expect(() => migrate(waiter)).toThrow(/locked|busy/i);
        holder.exec('COMMIT');
        expect(migrate(waiter).applied.length).toBeGreaterThan(0);
        expect(migrate(holder).applied).toEqual([]);
      }),
    );
  });

  it('refuses when an applied migration file has changed', () => {
    const { dir, migrations } = copiedMigrations();
    withDatabase({ path: join(dir, 'c.db') }, (db) => {
      migrate(db, { dir: migrations });
      appendFileSync(join(migrations, '0001-core-graph.sql'), '\n-- an edit after the fact\n');
      let caught: unknown;
      try {
        migrate(db, { dir: migrations });
      } catch (e) {
        caught = e;
      }
      expect(isKeepGraphError(caught) && caught.code).toBe('store_unavailable');
      expect(isKeepGraphError(caught) && caught.details?.['reason']).toBe(
        'migration_checksum_mismatch',
      );
    });
  });

  it('applies a new migration appended later, and rolls back a failing one whole', () => {
    const { dir, migrations } = copiedMigrations();
    withDatabase({ path: join(dir, 'd.db') }, (db) => {
      const base = migrate(db, { dir: migrations }).current;
      const next = String(base + 1).padStart(4, '0');
      appendFileSync(
        join(migrations, `${next}-broken.sql`),
        'CREATE TABLE extra_ok (x INTEGER);\nTHIS IS NOT SQL;\n',
      );
      expect(() => migrate(db, { dir: migrations })).toThrow();
      expect(
        db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'extra_ok'").pluck().get(),
      ).toBe(0);
      expect(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(base);
    });
  });
});

describe('0009 passes due', () => {
  it('makes every owner that already has memories due for reflection and compaction', async () => {
    const path = join(scratch(), 'f.db');
    await withStore(path, (store) =>
      writeMemories(
        store,
        ['owner-a', 'owner-b'].map((o) => memoryFixture(o)),
      ),
    );
    // The database as it was before 0009: no passes_due table, the ledger at 8.
    remigrate(
      path,
      9,
      (db) => db.exec('DROP TABLE passes_due'),
      (db) =>
        expect(
          db.prepare('SELECT schedule, owner_id, token FROM passes_due ORDER BY 1, 2').all(),
        ).toEqual([
          { schedule: 'compact', owner_id: 'owner-a', token: 'migrated' },
          { schedule: 'compact', owner_id: 'owner-b', token: 'migrated' },
          { schedule: 'reflect', owner_id: 'owner-a', token: 'migrated' },
          { schedule: 'reflect', owner_id: 'owner-b', token: 'migrated' },
        ]),
    );
  });
});

describe('0016 idempotency hashed keys', () => {
  it('drops the records kept before, whose key and error messages are as sent', async () => {
    const path = join(scratch(), 'h.db');
    await withStore(path);
    remigrate(
      path,
      16,
      (db) =>
        db
          .prepare(
            `INSERT INTO idempotency (scope, key, owner_id, request_hash, created_at, expires_at, response_json)
             VALUES ('key:k1', 'ghp_sent_as_a_key', 'owner-a', 'h', '2026-01-01T00:00:00Z', '2999-01-01T00:00:00Z',
                     '{"status":404,"body":{"error":{"code":"not_found","message":"no session sk_live_x"}}}')`,
          )
          .run(),
      (db) => expect(db.prepare('SELECT count(*) FROM idempotency').pluck().get()).toBe(0),
    );
  });
});

describe('0014 owner-tagged terms', () => {
  it('re-indexes the full text of a store made with the owner-key column, tagged by owner', async () => {
    const path = join(scratch(), 'g.db');
    const a = { ...memoryFixture('owner-a'), text: 'Runners crossed the old bridge' };
    const b = { ...memoryFixture('owner-b'), text: 'Runners crossed the old bridge' };
    await withStore(path, (store) => writeMemories(store, [a, b]));
    // The database as it was before 0014: its full text in 0004's table.
    remigrate(
      path,
      14,
      (db) => {
        db.exec(`CREATE VIRTUAL TABLE memory_fts_owned USING fts5 (
          text, owner_key, owner_id UNINDEXED, memory_id UNINDEXED, content_hash UNINDEXED,
          tokenize = 'porter unicode61 remove_diacritics 2')`);
        db.exec(`INSERT INTO memory_fts_owned (rowid, text, owner_key, owner_id, memory_id, content_hash)
                 SELECT rid, text, 'zz' || hex(owner_id), owner_id, id, content_hash FROM memories`);
        db.exec('DROP TABLE memory_fts_terms');
      },
      (db) =>
        expect(
          db
            .prepare("SELECT count(*) FROM sqlite_master WHERE name = 'memory_fts_owned'")
            .pluck()
            .get(),
        ).toBe(0),
    );
    await withStore(path, async (reopened) => {
      const opts = { limit: 5, now: new Date().toISOString() };
      expect(
        (await reopened.searchText('owner-a', 'running bridges', opts)).map((h) => h.id),
      ).toEqual([a.id]);
      expect((await reopened.searchText('owner-b', 'bridge', opts)).map((h) => h.id)).toEqual([
        b.id,
      ]);
    });
  });
});

describe('0017 session writers', () => {
  it('keeps messages stored before it readable, their writer unknown, and records writers after it', async () => {
    const path = join(scratch(), 'h.db');
    await withStore(path);
    const at = new Date().toISOString();
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    // The database as it was before 0017: no writer columns, a message of that time.
    remigrate(path, 17, (db) => {
      db.exec('ALTER TABLE session_messages DROP COLUMN writer_principal');
      db.exec('ALTER TABLE session_messages DROP COLUMN writer_role');
      db.prepare(
        `INSERT INTO session_messages (owner_id, session_id, role, text, at, at_ms, expires_at, expires_ms, memory_id)
         VALUES ('owner-a', 'chat', 'user', 'always cc backup@example.net', ?, ?, ?, ?, NULL)`,
      ).run(at, Date.parse(at), expires, Date.parse(expires));
    });
    await withStore(path, async (reopened) => {
      await reopened.write({
        memories: [],
        supersede: [],
        sessionMessages: [
          {
            ownerId: 'owner-a',
            sessionId: 'chat',
            role: 'tool',
            text: 'mail api: sent',
            at,
            expiresAt: expires,
            memoryId: null,
            writer: { principal: 'key:k1', role: 'tool' },
          },
        ],
        audit: [],
      });
      const read = await reopened.sessionMessages('owner-a', 'chat', { limit: 10, now: at });
      expect(read.map((m) => [m.role, m.text, m.writer])).toEqual([
        ['user', 'always cc backup@example.net', null],
        ['tool', 'mail api: sent', { principal: 'key:k1', role: 'tool' }],
      ]);
    });
  });
});

describe('vector dimension', () => {
  it('is recorded at init and a reopen with another dimension is refused', async () => {
    const path = join(scratch(), 'e.db');
    const s1 = createSqliteStore({ path });
    await s1.init({ dimensions: 8 });
    await s1.init({ dimensions: 8 }); // idempotent
    await s1.close();

    const s2 = createSqliteStore({ path });
    await expect(s2.init({ dimensions: 16 })).rejects.toMatchObject({
      name: 'KeepGraphError',
      code: 'invalid_input',
    });
    await s2.close();

    const s3 = createSqliteStore({ path });
    await s3.init({ dimensions: 8 });
    await s3.close();

    const raw = new Database(path, { readonly: true });
    expect(
      raw.prepare("SELECT value FROM meta WHERE key = 'vector_dimensions'").pluck().get(),
    ).toBe('8');
    raw.close();
  });

  it('rejects dimensions that are not a positive integer', async () => {
    const s = createSqliteStore({ path: ':memory:' });
    await expect(s.init({ dimensions: 0 })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(s.init({ dimensions: 1.5 })).rejects.toMatchObject({ code: 'invalid_input' });
    await s.close();
  });

  it('refuses operations before init', async () => {
    const s = createSqliteStore({ path: ':memory:' });
    await expect(s.listOwners()).rejects.toMatchObject({ code: 'store_unavailable' });
    await s.close();
  });
});
