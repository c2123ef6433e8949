// The query files: each one, its fragments taken in, prepares against the
// schema an initialised store has, and the statements that share a fragment
// hold its text word for word.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/open-database.ts';
import { querySql } from '../src/queries.ts';
import { openStore } from './helpers.ts';

const QUERIES_DIR = fileURLToPath(new URL('../src/queries/', import.meta.url));
const queryNames = readdirSync(QUERIES_DIR)
  .filter((f) => f.endsWith('.sql'))
  .map((f) => f.slice(0, -4));

describe('query files', () => {
  it('all prepare, with no include left unexpanded', async () => {
    const { store, path, done } = await openStore();
    await store.close();
    const db = openDatabase({ path });
    try {
      expect(queryNames.length).toBeGreaterThan(0);
      for (const name of queryNames) {
        const sql = querySql(name);
        expect(sql, name).not.toMatch(/@include/);
        expect(() => db.prepare(sql), name).not.toThrow();
      }
    } finally {
      db.close();
      await done();
    }
  });

  it('puts one fragment into the statements that share it', () => {
    const hits = /WITH named AS \([\s\S]*?\nhits AS \([\s\S]*?\n\)/.exec(
      querySql('search-entities'),
    )?.[0];
    expect(hits).toBeDefined();
    expect(querySql('search-entities-newest')).toContain(hits);
    const live = /FROM memories m\n WHERE[\s\S]*valid_from_ms <= @nowMs/.exec(
      querySql('unreflected-episodes'),
    )?.[0];
    expect(live).toContain("m.kind = 'episode'");
    expect(querySql('count-unreflected')).toContain(live);
  });

  it('refuses an unknown query name', () => {
    expect(() => querySql('no-such-query')).toThrow(/no query file/);
  });
});
