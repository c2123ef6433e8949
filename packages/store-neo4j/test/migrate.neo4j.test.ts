// The Neo4j migration runner: applies numbered files once and in order,
// is idempotent, refuses a changed file, and serialises runners with the
// lease. Tests use their own ledger and index names, so they never touch
// the store's own schema ledger in the shared database.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import neo4j from 'neo4j-driver';
import type { Driver } from 'neo4j-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEO4J_MIGRATIONS_DIR } from '@keepgraph/graph-schema';
import {
  acquireSchemaLock,
  createNeo4jStore,
  migrate,
  readMigrations,
  releaseSchemaLock,
  splitStatements,
} from '../src/index.ts';
import { DIM, openStore } from './helpers.ts';
import { neo4jUri, releaseNeo4j } from './neo4j-uri.ts';

let uri: string;
let driver: Driver;
const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
const indexNames = [`kgtest_${suffix}_a`, `kgtest_${suffix}_b`, `kgtest_${suffix}_c`];
const ledgers: string[] = [];
const dirs: string[] = [];

/** A migrations directory with two files (three index statements). */
function migrationsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-neo4j-migrations-'));
  dirs.push(dir);
  writeFileSync(
    join(dir, '0001-first.cypher'),
    `// 0001-first: a test index.\nCREATE INDEX ${indexNames[0]} IF NOT EXISTS\nFOR (n:KgTest${suffix}) ON (n.a);\n`,
  );
  writeFileSync(
    join(dir, '0002-second.cypher'),
    `// 0002-second: two statements.\nCREATE INDEX ${indexNames[1]} IF NOT EXISTS FOR (n:KgTest${suffix}) ON (n.b);\n\n` +
      `CREATE INDEX ${indexNames[2]} IF NOT EXISTS FOR (n:KgTest${suffix}) ON (n.c);\n`,
  );
  writeFileSync(join(dir, 'README.md'), 'not a migration');
  return dir;
}

function newLedger(): string {
  const l = `test-${randomUUID()}`;
  ledgers.push(l);
  return l;
}

async function codeOf(
  p: Promise<unknown>,
): Promise<{ code?: string; details?: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return e as { code?: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  uri = await neo4jUri();
  driver = neo4j.driver(uri, undefined, { disableLosslessIntegers: true });
});

afterAll(async () => {
  for (const name of indexNames) await driver.executeQuery(`DROP INDEX ${name} IF EXISTS`);
  await driver.executeQuery(
    'MATCH (n) WHERE (n:SchemaMigration OR n:SchemaLock) AND n.ledger IN $ledgers DETACH DELETE n',
    { ledgers },
  );
  await driver.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await releaseNeo4j();
});

describe('migrations (neo4j)', () => {
  it('splits a file into statements at lines ending in ";", dropping // comments', () => {
    expect(
      splitStatements(
        '// header; with a semicolon\nCREATE INDEX a\nFOR (n:X) ON (n.a);\n\nRETURN 1;\n',
      ),
    ).toEqual(['CREATE INDEX a\nFOR (n:X) ON (n.a)', 'RETURN 1']);
    const files = readMigrations();
    expect(files.map((f) => f.version)).toEqual(files.map((_, i) => i + 1));
    expect(files.every((f) => f.statements.length > 0)).toBe(true);
  });

  it('applies pending files once, in order, records them, and is idempotent', async () => {
    const dir = migrationsDir();
    const ledger = newLedger();
    const first = await migrate(driver, { dir, ledger });
    expect(first).toEqual({ applied: [1, 2], current: 2 });
    const again = await migrate(driver, { dir, ledger });
    expect(again).toEqual({ applied: [], current: 2 });
    const recorded = await driver.executeQuery(
      'MATCH (m:SchemaMigration {ledger: $ledger}) RETURN m.version AS v, m.name AS name, m.checksum AS c, m.appliedAt AS at ORDER BY v',
      { ledger },
    );
    expect(recorded.records.map((r) => [r.get('v'), r.get('name')])).toEqual([
      [1, 'first'],
      [2, 'second'],
    ]);
    expect(
      recorded.records.every(
        (r) => /^[0-9a-f]{64}$/.test(r.get('c')) && !Number.isNaN(Date.parse(r.get('at'))),
      ),
    ).toBe(true);
    const shown = await driver.executeQuery(
      'SHOW INDEXES YIELD name, state WHERE name IN $names RETURN name, state',
      {
        names: indexNames,
      },
    );
    expect(shown.records.map((r) => r.get('state'))).toEqual(['ONLINE', 'ONLINE', 'ONLINE']);
  });

  it('refuses a migration whose file changed after it was applied', async () => {
    const dir = migrationsDir();
    const ledger = newLedger();
    await migrate(driver, { dir, ledger });
    writeFileSync(
      join(dir, '0001-first.cypher'),
      `// edited\nCREATE INDEX ${indexNames[0]} IF NOT EXISTS FOR (n:KgTest${suffix}) ON (n.a);\n`,
    );
    const err = await codeOf(migrate(driver, { dir, ledger }));
    expect(err.code).toBe('store_unavailable');
    expect(err.details?.reason).toBe('migration_checksum_mismatch');
  });

  it('waits for the lease: a held lock blocks a runner until it is released', async () => {
    const dir = migrationsDir();
    const ledger = newLedger();
    const holder = `other-${randomUUID()}`;
    expect(
      await acquireSchemaLock(driver, { ledger, holder, leaseMs: 60_000, timeoutMs: 1000 }),
    ).toBe(true);
    const err = await codeOf(migrate(driver, { dir, ledger, lockTimeoutMs: 500 }));
    expect(err.code).toBe('store_unavailable');
    expect(err.details?.reason).toBe('migration_lock_timeout');
    const none = await driver.executeQuery(
      'MATCH (m:SchemaMigration {ledger: $ledger}) RETURN count(m) AS n',
      { ledger },
    );
    expect(none.records[0]?.get('n')).toBe(0);
    await releaseSchemaLock(driver, { ledger, holder });
    expect((await migrate(driver, { dir, ledger })).applied).toEqual([1, 2]);
  });

  it('an expired lease is taken over', async () => {
    const dir = migrationsDir();
    const ledger = newLedger();
    expect(
      await acquireSchemaLock(driver, { ledger, holder: 'crashed', leaseMs: 1, timeoutMs: 1000 }),
    ).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect((await migrate(driver, { dir, ledger, lockTimeoutMs: 2000 })).applied).toEqual([1, 2]);
  });

  it('concurrent runners apply each migration exactly once', async () => {
    const dir = migrationsDir();
    const ledger = newLedger();
    const results = await Promise.all([1, 2, 3, 4].map(() => migrate(driver, { dir, ledger })));
    const applied = results.map((r) => r.applied).sort((a, b) => b.length - a.length);
    expect(applied).toEqual([[1, 2], [], [], []]);
    const count = await driver.executeQuery(
      'MATCH (m:SchemaMigration {ledger: $ledger}) RETURN count(m) AS n',
      { ledger },
    );
    expect(count.records[0]?.get('n')).toBe(2);
    const lock = await driver.executeQuery(
      'MATCH (l:SchemaLock {ledger: $ledger}) RETURN l.holder AS h',
      { ledger },
    );
    expect(lock.records[0]?.get('h')).toBeNull();
  });

  it('the store schema: init is idempotent, and a different vector dimension is refused', async () => {
    const a = await openStore(uri);
    const b = await openStore(uri);
    await a.done();
    await b.done();
    const shown = await driver.executeQuery(
      "SHOW INDEXES YIELD name, type, state, options WHERE name IN ['memory_embedding', 'memory_text'] RETURN name, type, state, options ORDER BY name",
    );
    expect(shown.records.map((r) => [r.get('name'), r.get('type'), r.get('state')])).toEqual([
      ['memory_embedding', 'VECTOR', 'ONLINE'],
      ['memory_text', 'FULLTEXT', 'ONLINE'],
    ]);
    expect(shown.records[0]?.get('options').indexConfig['vector.dimensions']).toBe(DIM);
    const meta = await driver.executeQuery(
      "MATCH (k:KeepGraphMeta {key: 'vector_dimensions'}) RETURN k.value AS v",
    );
    expect(meta.records[0]?.get('v')).toBe(DIM);
    const other = createNeo4jStore({ uri });
    try {
      const err = await codeOf(other.init({ dimensions: DIM + 1 }));
      expect(err.code).toBe('invalid_input');
    } finally {
      await other.close();
    }
  });
});

describe('0010 idempotency hashed keys (neo4j)', () => {
  it('deletes the records kept before, whose key and error messages are as sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-neo4j-0010-'));
    dirs.push(dir);
    const file = '0010-idempotency-hashed-keys.cypher';
    copyFileSync(join(NEO4J_MIGRATIONS_DIR, file), join(dir, file));
    const id = `key:k1\u0000ghp_sent_as_a_key_${suffix}`;
    await driver.executeQuery(
      `CREATE (:IdempotencyRecord {id: $id, scope: 'key:k1', key: 'ghp_sent_as_a_key',
               expiresAt: '2999-01-01T00:00:00Z', response: '{"status":404}'})`,
      { id },
    );
    expect(await migrate(driver, { dir, ledger: newLedger() })).toEqual({
      applied: [10],
      current: 10,
    });
    const left = await driver.executeQuery(
      'MATCH (r:IdempotencyRecord {id: $id}) RETURN count(r) AS n',
      { id },
    );
    expect(left.records[0]?.get('n')).toBe(0);
  });
});
