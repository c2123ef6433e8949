// Applies the numbered Neo4j migrations of graph-schema/neo4j in order,
// under the migration lease (schema-lock.ts), recording each in the ledger
// as a (:SchemaMigration {ledger, version, name, checksum, appliedAt}) node.
// An applied file whose checksum changed is refused: migrations are
// append-only. Neo4j runs schema commands in their own transactions, so a
// migration is not atomic: its statements must be idempotent (IF NOT
// EXISTS), and a file that failed half-way is simply re-run in full.
import { randomUUID } from 'node:crypto';
import { KeepGraphError } from '@keepgraph/core';
import {
  checkMigrationLedger,
  readMigrationsOrRefuse,
  type LedgerRow,
} from '@keepgraph/core/ports';
import {
  NEO4J_MIGRATIONS_DIR,
  migrationChecksum,
  readMigrationFiles,
  type MigrationFileText,
} from '@keepgraph/graph-schema';
import neo4j from 'neo4j-driver';
import type { Driver } from 'neo4j-driver';
import { acquireSchemaLock, releaseSchemaLock, tryAcquireSchemaLock } from './schema-lock.ts';
import { num } from './transactions.ts';
import { ensureVectorIndex } from './vector-index.ts';

/** One migration file: `0001-constraints.cypher` is version 1, name 'constraints'. */
export interface MigrationFile extends MigrationFileText {
  /** Its statements, as splitStatements cuts them. */
  statements: string[];
}

export interface MigrationResult {
  /** Versions applied by this call (empty when already up to date). */
  applied: number[];
  /** The highest version now recorded in the ledger. */
  current: number;
}

export interface MigrateOptions {
  database?: string;
  /** Directory of numbered `.cypher` files (default graph-schema/neo4j). */
  dir?: string;
  /** Ledger name (default 'keepgraph'); tests use their own to stay apart. */
  ledger?: string;
  /** When given, also create or check the vector index for this dimension. */
  dimensions?: number;
  /** How long to wait for another runner's lease (default 120 s). */
  lockTimeoutMs?: number;
  /** Lease length, renewed after every statement (default 60 s). */
  leaseMs?: number;
  now?: () => Date;
}

/** The default ledger of the store's own schema. */
export const DEFAULT_LEDGER = 'keepgraph';

export { migrationChecksum };

/**
 * The statements of a migration file: `//` comment lines dropped, split at
 * lines ending in ';'.
 */
export function splitStatements(text: string): string[] {
  const body = text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n');
  return body
    .split(/;[ \t]*$/m)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Read and order the migration files of a directory. */
export function readMigrations(dir: string = NEO4J_MIGRATIONS_DIR): MigrationFile[] {
  return readMigrationsOrRefuse(() => readMigrationFiles(dir, 'cypher')).map((f) => ({
    ...f,
    statements: splitStatements(f.text),
  }));
}

/** The ledger's own constraints; idempotent, and tolerant of a racing runner creating them. */
async function bootstrapLedger(driver: Driver, database: string | undefined): Promise<void> {
  const statements = [
    'CREATE CONSTRAINT schema_lock_ledger IF NOT EXISTS FOR (l:SchemaLock) REQUIRE l.ledger IS UNIQUE',
    'CREATE CONSTRAINT schema_migration_key IF NOT EXISTS FOR (m:SchemaMigration) REQUIRE (m.ledger, m.version) IS UNIQUE',
  ];
  const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
  try {
    for (const s of statements) {
      for (let attempt = 0; ; attempt++) {
        try {
          await session.run(s);
          break;
        } catch (e) {
          // Two runners creating the same constraint at once: one may see
          // the other's half-made rule; the second attempt finds it made.
          if (attempt >= 3) throw e;
          await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
        }
      }
    }
    await session.run('CALL db.awaitIndexes(300)');
  } finally {
    await session.close();
  }
}

async function readLedger(
  driver: Driver,
  database: string | undefined,
  ledger: string,
): Promise<LedgerRow[]> {
  const session = driver.session({ database, defaultAccessMode: neo4j.session.READ });
  try {
    const r = await session.executeRead((tx) =>
      tx.run(
        `MATCH (m:SchemaMigration {ledger: $ledger})
         RETURN m.version AS version, m.name AS name, m.checksum AS checksum ORDER BY m.version`,
        { ledger },
      ),
    );
    return r.records.map((x) => ({
      version: num(x.get('version')),
      name: String(x.get('name')),
      checksum: String(x.get('checksum')),
    }));
  } finally {
    await session.close();
  }
}

/**
 * Bring the database up to the newest migration (and, given `dimensions`,
 * the vector index). Idempotent; concurrent runners wait for the lease.
 */
export async function migrate(driver: Driver, opts: MigrateOptions = {}): Promise<MigrationResult> {
  const files = readMigrations(opts.dir);
  const ledger = opts.ledger ?? DEFAULT_LEDGER;
  const database = opts.database;
  const now = opts.now ?? (() => new Date());
  const lease = {
    database,
    ledger,
    holder: `migrate-${randomUUID()}`,
    leaseMs: opts.leaseMs ?? 60_000,
  };

  await bootstrapLedger(driver, database);
  const got = await acquireSchemaLock(driver, {
    ...lease,
    timeoutMs: opts.lockTimeoutMs ?? 120_000,
  });
  if (!got) {
    throw new KeepGraphError('store_unavailable', 'another runner holds the migration lock', {
      reason: 'migration_lock_timeout',
      ledger,
    });
  }
  try {
    // Read under the lease: what another runner applied before is seen here.
    const rows = await readLedger(driver, database, ledger);
    checkMigrationLedger(files, rows);
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
    try {
      for (const f of files) {
        if (done.has(f.version)) continue;
        for (const statement of f.statements) {
          // A migration statement is trusted repository text, never input.
          await session.run(statement);
          if (!(await tryAcquireSchemaLock(driver, lease))) {
            throw new KeepGraphError('store_unavailable', 'the migration lease was lost', {
              reason: 'migration_lease_lost',
              ledger,
            });
          }
        }
        await session.run('CALL db.awaitIndexes(300)');
        await session.executeWrite((tx) =>
          tx.run(
            `CREATE (:SchemaMigration {ledger: $ledger, version: $version, name: $name,
                                       checksum: $checksum, appliedAt: $appliedAt})`,
            {
              ledger,
              version: neo4j.int(f.version),
              name: f.name,
              checksum: f.checksum,
              appliedAt: now().toISOString(),
            },
          ),
        );
        applied.push(f.version);
      }
    } finally {
      await session.close();
    }
    if (opts.dimensions !== undefined) await ensureVectorIndex(driver, database, opts.dimensions);
    const current = Math.max(0, ...rows.map((r) => r.version), ...applied);
    return { applied, current };
  } finally {
    await releaseSchemaLock(driver, lease);
  }
}
