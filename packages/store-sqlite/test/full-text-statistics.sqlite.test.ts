// SQLite's per-owner full-text statistics (the conformance suite holds
// every store to ranking an owner the same whatever others write): the
// store ranks an owner alone in the table by FTS5's own statement and
// beside others by per-term rescoring, and the two must agree, inside the
// full-text window and when every match is ranked; the per-owner counts
// behind it stay equal to the rows themselves through writes, cascades and
// the migration that introduced them.
import { describe, expect, it } from 'vitest';
import type { Memory } from '@keepgraph/core';
import { OWNER_STATISTICS_TEXTS, otherOwnersTexts } from '@keepgraph/core/testing';
import { migrate } from '../src/index.ts';
import { openDatabase } from '../src/open-database.ts';
import { FULL_TEXT_WINDOW } from '../src/search-text.ts';
import { readVarints, rowTokens } from '../src/fts-row-tokens.ts';
import type { SqliteMemoryStore } from '../src/index.ts';
import { NOW, batchOf, forgetRequest, makeMemory, newOwner, openStore } from './helpers.ts';

/** The owner's rows: `window` older padding rows first, then the fixture's (newest, so ranked). */
function ownerRows(owner: string, window = 0): Memory[] {
  const padding = Array.from(
    { length: window },
    (_, i) => `a note number ${i} about the weather and the garden`,
  );
  return [...padding, ...OWNER_STATISTICS_TEXTS].map((text) => makeMemory(owner, { text }));
}

/** Other owners' rows: many, and longer or shorter on average than the owner's. */
function otherRows(n: number): Memory[] {
  const owners = Array.from({ length: 20 }, () => newOwner());
  return otherOwnersTexts(n).map((text, i) => makeMemory(owners[i % owners.length]!, { text }));
}

async function hits(store: SqliteMemoryStore, owner: string, query: string) {
  return store.searchText(owner, query, { limit: 20, now: NOW });
}

describe('full-text statistics per owner', () => {
  it.each([
    ['every match ranked', 0],
    ['the newest FULL_TEXT_WINDOW matches ranked', FULL_TEXT_WINDOW + 50],
  ])('ranks an owner the same beside 1,000 rows of other owners (%s)', async (_, window) => {
    const owner = newOwner();
    const alone = await openStore();
    const beside = await openStore();
    try {
      await alone.store.write(batchOf(ownerRows(owner, window)));
      // Beside: other owners' rows before and after, so rowids interleave.
      await beside.store.write(batchOf(otherRows(500)));
      await beside.store.write(batchOf(ownerRows(owner, window)));
      await beside.store.write(batchOf(otherRows(500)));
      for (const query of ['apple pear', 'pear', 'weather apple', 'the river walk']) {
        const a = await hits(alone.store, owner, query);
        const b = await hits(beside.store, owner, query);
        const text = async (s: SqliteMemoryStore, id: string) =>
          (await s.getByIds(owner, [id]))[0]!.text;
        expect(await Promise.all(b.map((h) => text(beside.store, h.id))), query).toEqual(
          await Promise.all(a.map((h) => text(alone.store, h.id))),
        );
        b.forEach((h, i) => expect(h.score, `${query} #${i}`).toBeCloseTo(a[i]!.score, 9));
      }
      if (window > 0) return;
      // The owner's IDF, not the table's: one rare apple beats three common pears.
      const [best] = await hits(beside.store, owner, 'apple pear');
      expect((await beside.store.getByIds(owner, [best!.id]))[0]!.text).toBe(
        'an apple on the kitchen table',
      );
    } finally {
      await alone.done();
      await beside.done();
    }
  });

  it('keeps each owner’s row and token counts equal to its full-text rows through writes and cascades', async () => {
    const { store, path, done } = await openStore();
    try {
      const a = newOwner();
      const b = newOwner();
      const ma = ownerRows(a);
      await store.write(batchOf([...ma, ...ownerRows(b)]));
      await store.deleteCascade(forgetRequest(a, [ma[0]!.id, ma[2]!.id]));
      const all = ownerRows(a);
      await store.write(batchOf(all));
      await store.deleteCascade(
        forgetRequest(
          a,
          [...ma, ...all].map((m) => m.id),
        ),
      );
      const db = openDatabase({ path });
      try {
        const recount = db
          .prepare(
            `SELECT f.owner_id AS owner, count(*) AS rows, group_concat(hex(d.sz)) AS sizes
               FROM memory_fts_terms f JOIN memory_fts_terms_docsize d ON d.id = f.rowid
              GROUP BY f.owner_id ORDER BY 1`,
          )
          .all() as { owner: string; rows: number; sizes: string }[];
        const kept = db
          .prepare('SELECT owner_id AS owner, rows, tokens FROM owner_text_rows ORDER BY 1')
          .all();
        expect(kept).toEqual(
          recount.map((r) => ({
            owner: r.owner,
            rows: r.rows,
            tokens: r.sizes
              .split(',')
              .reduce((s, hex) => s + rowTokens(Buffer.from(hex, 'hex')), 0),
          })),
        );
        // a's rows are all gone, and so is its count.
        expect(kept.map((k) => (k as { owner: string }).owner)).toEqual([b]);
        // FTS5's own totals, read as the search reads them, agree with the table.
        const totals = readVarints(
          db
            .prepare('SELECT block FROM memory_fts_terms_data WHERE id = 1')
            .pluck()
            .get() as Buffer,
        );
        expect(totals[0]).toBe(db.prepare('SELECT count(*) FROM memory_fts_terms').pluck().get());
      } finally {
        db.close();
      }
    } finally {
      await done();
    }
  });

  it('0015 counts the rows of a store made before it', async () => {
    const { store, path, done } = await openStore();
    try {
      const a = newOwner();
      const b = newOwner();
      await store.write(batchOf([...ownerRows(a), ...ownerRows(b).slice(0, 3)]));
      const db = openDatabase({ path });
      try {
        const before = db.prepare('SELECT * FROM owner_text_rows ORDER BY 1').all();
        expect(before).toHaveLength(2);
        db.exec('DROP TABLE owner_text_rows');
        db.prepare('DELETE FROM schema_migrations WHERE version = 15').run();
        expect(migrate(db).applied).toEqual([15]);
        expect(db.prepare('SELECT * FROM owner_text_rows ORDER BY 1').all()).toEqual(before);
      } finally {
        db.close();
      }
    } finally {
      await done();
    }
  });
});

describe('readVarints', () => {
  it('reads SQLite varints of one to nine bytes', () => {
    expect(readVarints(Uint8Array.from([0x00, 0x7f, 0x81, 0x00, 0xff, 0x7f]))).toEqual([
      0, 127, 128, 16383,
    ]);
    // Nine bytes: eight of seven bits, then all eight bits of the last.
    expect(
      readVarints(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x05, 0x02])),
    ).toEqual([261, 2]);
  });
});

describe('rowTokens', () => {
  it('sums the varints of a docsize record as readVarints reads them', () => {
    const records = [
      [0x05, 0x00, 0x00],
      [0x81, 0x00, 0x02],
      [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x05, 0x7f],
      [],
    ].map((r) => Uint8Array.from(r));
    for (const r of records) expect(rowTokens(r)).toBe(readVarints(r).reduce((a, b) => a + b, 0));
  });
});
