// The audit log: sealed in the write transaction, verifiable from genesis,
// append-only through SQL, and a raw edit of one event breaks verification.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, verifyAuditChain } from '@keepgraph/core';
import type { SqliteMemoryStore } from '../src/index.ts';
import { createSqliteStore } from '../src/index.ts';
import { tamperAuditEvent } from '../src/testing.ts';
import { DIM, auditEvent, batchOf, makeMemory, newOwner, storeAround } from './helpers.ts';

let store: SqliteMemoryStore;
let path: string;
storeAround((opened) => ({ store, path } = opened));

async function fillLog(): Promise<string> {
  const owner = newOwner();
  const m = makeMemory(owner);
  await store.write(batchOf([m]));
  await store.appendAudit([
    auditEvent('refuse', owner),
    { ...auditEvent('read', null), details: { n: 1, skip: undefined } },
  ]);
  await store.deleteCascade({
    ownerId: owner,
    rootIds: [m.id],
    reason: 'forget',
    at: m.createdAt,
    audit: [auditEvent('delete', owner)],
  });
  return owner;
}

describe('audit log', () => {
  it('chains from genesis and verifies', async () => {
    const owner = await fillLog();
    const events = await store.listAudit({ limit: 100 });
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(events[0]!.prevHash).toBe(GENESIS_HASH);
    expect(verifyAuditChain(events)).toEqual({ ok: true, checked: 4 });
    expect((await store.listAudit({ ownerId: owner, limit: 100 })).map((e) => e.seq)).toEqual([
      1, 2, 4,
    ]);
    expect((await store.listAudit({ afterSeq: 2, limit: 1 })).map((e) => e.seq)).toEqual([3]);
  });

  it('refuses UPDATE and DELETE through SQL', async () => {
    await fillLog();
    await store.close();
    const raw = new Database(path);
    expect(() =>
      raw.prepare("UPDATE audit_events SET actor = 'mallory' WHERE seq = 2").run(),
    ).toThrow(/append-only/);
    expect(() => raw.prepare('DELETE FROM audit_events WHERE seq = 2').run()).toThrow(
      /append-only/,
    );
    raw.close();
  });

  it('breaks verification after a raw edit of one event', async () => {
    await fillLog();
    await store.close();
    const raw = new Database(path);
    // Someone with the file bypasses the trigger.
    raw.exec('DROP TRIGGER audit_events_no_update');
    raw.prepare('UPDATE audit_events SET details_json = \'{"n":2}\' WHERE seq = 3').run();
    raw.close();

    const reopened = createSqliteStore({ path });
    await reopened.init({ dimensions: DIM });
    const result = verifyAuditChain(await reopened.listAudit({ limit: 100 }));
    expect(result).toMatchObject({ ok: false, brokenAt: 3, problem: 'hash_mismatch' });
    await reopened.close();
  });

  it('the testing probe tampers through a second connection and restores the trigger', async () => {
    await fillLog();
    expect(verifyAuditChain(await store.listAudit({ limit: 100 })).ok).toBe(true);
    await tamperAuditEvent(store, 2);
    expect(verifyAuditChain(await store.listAudit({ limit: 100 }))).toMatchObject({
      ok: false,
      brokenAt: 2,
    });
    await store.close();
    const raw = new Database(path);
    expect(() => raw.prepare("UPDATE audit_events SET actor = 'x' WHERE seq = 1").run()).toThrow(
      /append-only/,
    );
    raw.close();
  });
});
