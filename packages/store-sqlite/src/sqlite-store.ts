// The embedded default MemoryStore: one SQLite file (better-sqlite3) holding
// the graph as tables, the sqlite-vec vector index and the FTS5 index. The
// operations live in their own modules; this class opens, initialises and
// closes the connection and maps errors at the boundary.
import { KeepGraphError } from '@keepgraph/core';
import { KitStore, type KitOptions, type StoreOperations } from '@keepgraph/core/ports';
import type { EntityPlan, ScoredId, SearchOptions, StoreRules } from '@keepgraph/core/ports';
import * as apiKeys from './api-keys.ts';
import { appendAuditEvents, listAuditEvents } from './audit-log.ts';
import { deleteCascade } from './delete-cascade.ts';
import * as embeddings from './embeddings.ts';
import { findTraces } from './find-traces.ts';
import * as graph from './graph-reads.ts';
import * as idempotency from './idempotency.ts';
import * as records from './memory-reads.ts';
import { migrate } from './migrate.ts';
import {
  busyTimeoutMs,
  isMemoryPath,
  makeDatabaseFilePrivate,
  openDatabase,
  type Db,
} from './open-database.ts';
import { truncateWal, waitingOutLocks } from './busy-wait.ts';
import * as outbox from './outbox.ts';
import { Statements } from './queries.ts';
import * as reflection from './reflection.ts';
import * as scheduledPasses from './scheduled-passes.ts';
import * as search from './search.ts';
import * as sessions from './session-buffer.ts';
import { sqliteDriverError } from './sqlite-errors.ts';
import type { StoreContext } from './store-context.ts';
import { ensureVectorTable } from './vector-table.ts';
import type { FlatVectorIndex } from './vector-index/flat-index.ts';
import { OwnerVectorIndexes } from './vector-index/owner-indexes.ts';
import { writeBatch } from './write-batch.ts';

/**
 * The port's members over a SQLite context. Deletions checkpoint the WAL
 * afterwards, so forgotten text leaves the disk at once.
 */
const PORT_OPERATIONS: StoreOperations<StoreContext> = {
  write: writeBatch,
  deleteCascade: (c, req) => c.afterDelete(deleteCascade(c, req)),
  getById: records.getById,
  getByIds: records.getByIds,
  getByKey: records.getByKey,
  findBySource: records.findBySource,
  listIds: records.listIds,
  listOwners: records.listOwners,
  countMemories: records.countMemories,
  lowestValue: records.lowestValue,
  dueForExpiry: records.dueForExpiry,
  derivedFrom: records.derivedFrom,
  nextInSession: records.nextInSession,
  previousInSession: records.previousInSession,
  relations: graph.relations,
  searchVector: search.searchVector,
  searchText: search.searchText,
  searchEntities: search.searchEntities,
  listSessions: sessions.listSessions,
  sessionMessages: sessions.sessionMessages,
  trimSession: sessions.trimSession,
  deleteSessionMessages: (c, owner, scope) =>
    c.afterDelete(sessions.deleteSessionMessages(c, owner, scope)),
  deleteOwnerResidue: (c, owner) => c.afterDelete(sessions.deleteOwnerResidue(c, owner)),
  logReads: sessions.logReads,
  readLog: sessions.readLog,
  outboxPending: outbox.outboxPending,
  outboxAck: outbox.outboxAck,
  unreflectedEpisodes: reflection.unreflectedEpisodes,
  countUnreflected: reflection.countUnreflected,
  recentSources: reflection.recentSources,
  duePasses: scheduledPasses.duePasses,
  staleEmbeddings: embeddings.staleEmbeddings,
  replaceEmbeddings: embeddings.replaceEmbeddings,
  getEmbeddings: embeddings.getEmbeddings,
  appendAudit: (c, events) => {
    c.db.transaction(() => appendAuditEvents(c, events)).immediate();
  },
  listAudit: (c, opts) => listAuditEvents(c.st, opts),
  findTraces,
  counts: graph.counts,
  saveApiKey: apiKeys.saveApiKey,
  getApiKey: apiKeys.getApiKey,
  listApiKeys: apiKeys.listApiKeys,
  revokeApiKey: apiKeys.revokeApiKey,
  observedIn: records.observedIn,
  claimIdempotency: idempotency.claimIdempotency,
  completeIdempotency: idempotency.completeIdempotency,
  releaseIdempotency: idempotency.releaseIdempotency,
};

/** Each of them waiting out another process's lock on a timer (busy-wait.ts). */
const OPERATIONS = waitingOutLocks(PORT_OPERATIONS);

/** Options of createSqliteStore. */
export interface SqliteStoreOptions extends KitOptions {
  /** Database file (parent directories are created), or ':memory:'. */
  path: string;
  /**
   * How long an operation waits for another process's lock, in ms (default
   * 5000); it waits on a timer, so the process serves other requests meanwhile.
   */
  busyTimeoutMs?: number;
  /** Directory of numbered migrations (default: graph-schema/sqlite). For tests. */
  migrationsDir?: string;
  /**
   * Owners with at least this many vectors are searched through an
   * in-memory index instead of an exact scan of the vector table (default
   * 2,000; 0 indexes every owner, which the tests use).
   */
  vectorIndexMinVectors?: number;
  /**
   * Bytes the in-memory indexes may hold together before the least recently
   * searched are let go (default 512 MiB; a 100k owner takes about 150 MiB).
   */
  vectorIndexMaxBytes?: number;
}

/** The SQLite MemoryStore, with the extras tests and the CLI use. */
export class SqliteMemoryStore extends KitStore<StoreContext> {
  readonly kind = 'sqlite';
  /** Absolute path of the database file, or null for ':memory:'. */
  readonly dbFilePath: string | null;
  private readonly db: Db;

  constructor(private readonly opts: SqliteStoreOptions) {
    super(OPERATIONS, opts);
    this.db = openDatabase({
      path: opts.path,
      ...(opts.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: opts.busyTimeoutMs }),
    });
    this.dbFilePath = isMemoryPath(opts.path) ? null : this.db.name;
  }

  protected open(opts: {
    dimensions: number;
    rules: StoreRules;
  }): Promise<{ context: StoreContext; schemaVersion: number }> {
    const { current } = migrate(
      this.db,
      this.opts.migrationsDir === undefined ? {} : { dir: this.opts.migrationsDir },
    );
    ensureVectorTable(this.db, opts.dimensions);
    OwnerVectorIndexes.seed(this.db);
    const st = new Statements(this.db);
    // From here on a lock is waited out on a timer, not inside the call (busy-wait.ts).
    this.db.pragma('busy_timeout = 0');
    const wal = { pending: false, asks: 0 };
    const context: StoreContext = {
      db: this.db,
      st,
      dimensions: opts.dimensions,
      rules: opts.rules,
      busyTimeoutMs: busyTimeoutMs(this.opts),
      vectors: new OwnerVectorIndexes(
        this.db,
        st,
        opts.dimensions,
        this.opts.vectorIndexMinVectors,
        this.opts.vectorIndexMaxBytes,
      ),
      afterDelete: (result) => {
        if (this.dbFilePath !== null) {
          wal.pending = true;
          wal.asks += 1;
        }
        return result;
      },
      wal,
    };
    return Promise.resolve({ context, schemaVersion: current });
  }

  /**
   * Copy the WAL into the main file and empty it, so the file alone holds
   * the whole database (tests grep it to prove a secret is absent).
   */
  checkpoint(): void {
    if (!this.isClosed && this.dbFilePath !== null) truncateWal(this.db);
  }

  /**
   * Copy the database into `dest` (a new file) with SQLite's online backup
   * API while other connections, in this process or others, go on reading
   * and writing. All pages are copied in one step, inside one read
   * transaction: the copy is the database as of one commit, and a writer
   * elsewhere cannot make the backup start over (as it would between
   * steps). Under WAL that step blocks no writer; it holds this process's
   * event loop for the copy's length (about a second per GB here).
   */
  backupTo(dest: string): Promise<{ pages: number }> {
    return this.run(async () => {
      if (this.dbFilePath === null)
        throw new KeepGraphError('invalid_input', 'an in-memory store has no file to back up');
      // A copy of every memory: private from its first byte, not once it is whole.
      makeDatabaseFilePrivate(dest);
      const r = await this.db.backup(dest, { progress: () => 0x7fffffff });
      return { pages: r.totalPages };
    });
  }

  /**
   * The in-memory vector index held for this owner, if any (none below the
   * size threshold, or before its first search). For tests and probes that
   * prove a deleted vector is gone from memory.
   */
  heldVectorIndex(ownerId: string): Promise<FlatVectorIndex | null> {
    return this.run((ctx) => {
      ctx.vectors.dropStale();
      return ctx.vectors.heldIndex(ownerId);
    });
  }

  /**
   * searchEntities through a chosen plan, and the plan it would choose: for
   * tests that hold both plans to the same answer.
   */
  searchEntitiesVia(
    plan: EntityPlan | undefined,
    ownerId: string,
    names: readonly string[],
    opts: SearchOptions,
  ): Promise<{ hits: ScoredId[]; chosen: EntityPlan }> {
    return this.run((ctx) => search.searchEntitiesWithPlan(ctx, ownerId, names, opts, plan));
  }

  /** Owners indexed in memory, their vectors and the bytes the index arrays take. */
  vectorIndexStats(): Promise<{ owners: number; vectors: number; bytes: number }> {
    return this.run((ctx) => ctx.vectors.stats());
  }

  protected shutdown(): Promise<void> {
    // The last checkpoint may wait inside the call: nothing else runs any more.
    this.db.pragma(`busy_timeout = ${busyTimeoutMs(this.opts)}`);
    if (this.dbFilePath !== null) truncateWal(this.db);
    this.db.close();
    return Promise.resolve();
  }

  protected driverError(e: unknown) {
    return sqliteDriverError(e);
  }
}

/** Open (and create if needed) a SQLite store. Call `init({ dimensions })` before use. */
export function createSqliteStore(opts: SqliteStoreOptions): SqliteMemoryStore {
  return new SqliteMemoryStore(opts);
}
