// Probes for tests (the shared conformance suite's StoreUnderTest): every
// byte the store keeps at rest, and a tamper that edits one audit event
// behind the store's back. Not for production code paths.
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { SqliteMemoryStore } from './sqlite-store.ts';

function fileOf(store: SqliteMemoryStore): string {
  if (store.dbFilePath === null)
    throw new Error('raw probes need a file-backed store, not :memory:');
  return store.dbFilePath;
}

/**
 * The database file and its WAL, concatenated, after a checkpoint: a
 * forgotten or refused text must appear in neither.
 */
export async function rawContent(store: SqliteMemoryStore): Promise<Buffer> {
  const file = fileOf(store);
  store.checkpoint();
  const parts = [file, `${file}-wal`, `${file}-journal`]
    .filter((p) => existsSync(p))
    .map((p) => readFileSync(p));
  return Buffer.concat(parts);
}

/** The database file and its WAL as they are on disk now: no checkpoint first. */
export function rawFilesAsIs(store: SqliteMemoryStore): Buffer {
  const file = fileOf(store);
  return Buffer.concat(
    [file, `${file}-wal`, `${file}-journal`]
      .filter((p) => existsSync(p))
      .map((p) => readFileSync(p)),
  );
}

/** Run `edit` through a second connection, past the append-only trigger (restored afterwards). */
function bypassAppendOnly(store: SqliteMemoryStore, edit: (db: Database.Database) => void): void {
  const db = new Database(fileOf(store));
  try {
    db.pragma('busy_timeout = 5000');
    db.transaction(() => {
      const trigger = db
        .prepare(
          "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'audit_events_no_update'",
        )
        .pluck()
        .get() as string | undefined;
      if (trigger) db.exec('DROP TRIGGER audit_events_no_update');
      edit(db);
      if (trigger) db.exec(trigger);
    }).immediate();
  } finally {
    db.close();
  }
}

/**
 * Change one stored audit event as an attacker with the file would. Returns
 * a function that puts it back, so a shared store's chain is whole again.
 */
export async function tamperAuditEvent(
  store: SqliteMemoryStore,
  seq: number,
): Promise<() => Promise<void>> {
  let original: string | undefined;
  bypassAppendOnly(store, (db) => {
    original = db.prepare('SELECT actor FROM audit_events WHERE seq = ?').pluck().get(seq) as
      string | undefined;
    if (original === undefined) throw new Error(`no audit event with seq ${seq}`);
    db.prepare("UPDATE audit_events SET actor = actor || ' (edited)' WHERE seq = ?").run(seq);
  });
  return async () =>
    bypassAppendOnly(
      store,
      (db) => void db.prepare('UPDATE audit_events SET actor = ? WHERE seq = ?').run(original, seq),
    );
}
