// The embedded default MemoryStore: one SQLite file (better-sqlite3) holding
// the graph as tables, the sqlite-vec vector index and the FTS5 index. The
// operations live in their own modules; this class opens, initialises and
// closes the connection and maps errors at the boundary.
import { KeepGraphError } from '@keepgraph/core';
import type {
  AuditEvent,
  AuditEventInput,
  CascadeRequest,
  DeletionReceipt,
  DerivedEdge,
  EmbeddingUpdate,
  ExpiryCandidate,
  Memory,
  MemoryStore,
  OutboxEntry,
  OwnerResidue,
  ReadLogEntry,
  SessionScope,
  RelationEdge,
  ScoredId,
  SearchOptions,
  SessionMessage,
  SessionSuccessor,
  StoreCounts,
  Trace,
  WriteBatch,
} from '@keepgraph/core';
import { appendAuditEvents, listAuditEvents } from './audit-log.ts';
import { deleteCascade } from './delete-cascade.ts';
import { getEmbeddings, replaceEmbeddings, staleEmbeddings } from './embeddings.ts';
import { findTraces } from './find-traces.ts';
import { counts, relations } from './graph-reads.ts';
import * as reads from './memory-reads.ts';
import { migrate } from './migrate.ts';
import { isMemoryPath, openDatabase } from './open-database.ts';
import type { Db } from './open-database.ts';
import { outboxAck, outboxPending } from './outbox.ts';
import { Statements } from './queries.ts';
import { countUnreflected, recentSources, unreflectedEpisodes } from './reflection.ts';
import { searchEntities, searchText, searchVector } from './search.ts';
import {
  deleteOwnerResidue,
  deleteSessionMessages,
  logRead,
  readLog,
  sessionMessages,
  trimSession,
} from './session-buffer.ts';
import { mapErrors } from './sqlite-errors.ts';
import type { StoreContext } from './store-context.ts';
import { ensureVectorTable } from './vector-table.ts';
import { writeBatch } from './write-batch.ts';

/** Options of createSqliteStore. */
export interface SqliteStoreOptions {
  /** Database file (parent directories are created), or ':memory:'. */
  path: string;
  /** How long a write waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** Directory of numbered migrations (default: graph-schema/sqlite). For tests. */
  migrationsDir?: string;
}

/** The SQLite MemoryStore, with the extras tests and the CLI use. */
export class SqliteMemoryStore implements MemoryStore {
  readonly kind = 'sqlite';
  /** Absolute path of the database file, or null for ':memory:'. */
  readonly dbFilePath: string | null;
  private readonly db: Db;
  private ctx: StoreContext | null = null;
  private closed = false;

  constructor(private readonly opts: SqliteStoreOptions) {
    this.db = openDatabase({
      path: opts.path,
      ...(opts.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: opts.busyTimeoutMs }),
    });
    this.dbFilePath = isMemoryPath(opts.path) ? null : this.db.name;
  }

  /** The initialised context; operations before init() are a programming error. */
  private get c(): StoreContext {
    if (this.closed) throw new KeepGraphError('store_unavailable', 'the store is closed');
    if (!this.ctx)
      throw new KeepGraphError('store_unavailable', 'call init() before using the store');
    return this.ctx;
  }

  /** Run a store operation with its errors mapped to KeepGraphError codes. */
  private op<T>(fn: (ctx: StoreContext) => T): Promise<T> {
    try {
      return Promise.resolve(mapErrors(() => fn(this.c)));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async init(opts: { dimensions: number }): Promise<void> {
    if (this.closed) throw new KeepGraphError('store_unavailable', 'the store is closed');
    mapErrors(() => {
      migrate(
        this.db,
        this.opts.migrationsDir === undefined ? {} : { dir: this.opts.migrationsDir },
      );
      ensureVectorTable(this.db, opts.dimensions);
    });
    this.ctx = { db: this.db, st: new Statements(this.db), dimensions: opts.dimensions };
  }

  /**
   * Copy the WAL into the main file and empty it, so the file alone holds
   * the whole database (tests grep it to prove a secret is absent).
   */
  checkpoint(): void {
    if (this.closed || this.dbFilePath === null) return;
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.checkpoint();
    this.closed = true;
    this.ctx = null;
    this.db.close();
  }

  write(batch: WriteBatch): Promise<void> {
    return this.op((c) => writeBatch(c, batch));
  }
  deleteCascade(req: CascadeRequest): Promise<DeletionReceipt> {
    return this.op((c) => {
      const receipt = deleteCascade(c, req);
      // The deleted rows' old pages sit in the WAL until a checkpoint
      // (secure_delete zeroes the main file's pages, not the log): copy the
      // log back and truncate it, so forgotten text is gone from disk now.
      this.checkpoint();
      return receipt;
    });
  }
  getById(ownerId: string, id: string): Promise<Memory | null> {
    return this.op((c) => reads.getById(c, ownerId, id));
  }
  getByIds(ownerId: string, ids: readonly string[]): Promise<Memory[]> {
    return this.op((c) => reads.getByIds(c, ownerId, ids));
  }
  getByKey(ownerId: string, key: string): Promise<Memory[]> {
    return this.op((c) => reads.getByKey(c, ownerId, key));
  }
  findBySource(ownerId: string, source: { uri?: string; tool?: string }): Promise<string[]> {
    return this.op((c) => reads.findBySource(c, ownerId, source));
  }
  listIds(ownerId: string, opts?: { after?: string; limit?: number }): Promise<string[]> {
    return this.op((c) => reads.listIds(c, ownerId, opts));
  }
  listOwners(): Promise<string[]> {
    return this.op((c) => reads.listOwners(c));
  }
  countMemories(ownerId: string): Promise<number> {
    return this.op((c) => reads.countMemories(c, ownerId));
  }
  lowestValue(ownerId: string, limit: number): Promise<string[]> {
    return this.op((c) => reads.lowestValue(c, ownerId, limit));
  }
  derivedFrom(ownerId: string, ids: readonly string[]): Promise<DerivedEdge[]> {
    return this.op((c) => reads.derivedFrom(c, ownerId, ids));
  }
  nextInSession(ownerId: string, ids: readonly string[]): Promise<SessionSuccessor[]> {
    return this.op((c) => reads.nextInSession(c, ownerId, ids));
  }
  searchVector(ownerId: string, vector: Float32Array, opts: SearchOptions): Promise<ScoredId[]> {
    return this.op((c) => searchVector(c, ownerId, vector, opts));
  }
  searchText(ownerId: string, query: string, opts: SearchOptions): Promise<ScoredId[]> {
    return this.op((c) => searchText(c, ownerId, query, opts));
  }
  searchEntities(
    ownerId: string,
    names: readonly string[],
    opts: SearchOptions,
  ): Promise<ScoredId[]> {
    return this.op((c) => searchEntities(c, ownerId, names, opts));
  }
  relations(ownerId: string, memoryIds?: readonly string[]): Promise<RelationEdge[]> {
    return this.op((c) => relations(c, ownerId, memoryIds));
  }
  dueForExpiry(now: string, limit: number): Promise<ExpiryCandidate[]> {
    return this.op((c) => reads.dueForExpiry(c, now, limit));
  }
  sessionMessages(
    ownerId: string,
    sessionId: string,
    opts: { limit: number; now: string },
  ): Promise<SessionMessage[]> {
    return this.op((c) => sessionMessages(c, ownerId, sessionId, opts));
  }
  trimSession(ownerId: string, sessionId: string, keep: number): Promise<number> {
    return this.op((c) => trimSession(c, ownerId, sessionId, keep));
  }

  deleteSessionMessages(ownerId: string, scope: SessionScope): Promise<number> {
    return this.op((c) => {
      const n = deleteSessionMessages(c, ownerId, scope);
      if (n > 0) this.checkpoint(); // as after a cascade: deleted words leave the WAL now
      return n;
    });
  }
  deleteOwnerResidue(ownerId: string): Promise<OwnerResidue> {
    return this.op((c) => {
      const r = deleteOwnerResidue(c, ownerId);
      this.checkpoint();
      return r;
    });
  }
  logRead(entry: ReadLogEntry): Promise<void> {
    return this.op((c) => logRead(c, entry));
  }
  readLog(ownerId: string, opts: { limit: number }): Promise<ReadLogEntry[]> {
    return this.op((c) => readLog(c, ownerId, opts));
  }
  outboxPending(limit: number): Promise<OutboxEntry[]> {
    return this.op((c) => outboxPending(c, limit));
  }
  outboxAck(jobIds: readonly string[]): Promise<void> {
    return this.op((c) => outboxAck(c, jobIds));
  }
  unreflectedEpisodes(ownerId: string, opts: { now: string; limit: number }): Promise<Memory[]> {
    return this.op((c) => unreflectedEpisodes(c, ownerId, opts));
  }
  countUnreflected(ownerId: string, now: string, upTo?: number): Promise<number> {
    return this.op((c) => countUnreflected(c, ownerId, now, upTo));
  }
  recentSources(ownerId: string, opts: { now: string; limit: number }): Promise<Memory[]> {
    return this.op((c) => recentSources(c, ownerId, opts));
  }
  staleEmbeddings(ownerId: string, model: string, limit: number): Promise<string[]> {
    return this.op((c) => staleEmbeddings(c, ownerId, model, limit));
  }
  replaceEmbeddings(ownerId: string, updates: readonly EmbeddingUpdate[]): Promise<void> {
    return this.op((c) => replaceEmbeddings(c, ownerId, updates));
  }
  getEmbeddings(
    ownerId: string,
    ids: readonly string[],
  ): Promise<{ id: string; embedding: Float32Array }[]> {
    return this.op((c) => getEmbeddings(c, ownerId, ids));
  }
  appendAudit(events: AuditEventInput[]): Promise<void> {
    return this.op((c) => {
      c.db.transaction(() => appendAuditEvents(c.st, events)).immediate();
    });
  }
  listAudit(opts: { ownerId?: string; afterSeq?: number; limit: number }): Promise<AuditEvent[]> {
    return this.op((c) => listAuditEvents(c.st, opts));
  }
  findTraces(
    ownerId: string,
    ids: readonly string[],
    contentHashes: readonly string[],
  ): Promise<Trace[]> {
    return this.op((c) => findTraces(c, ownerId, ids, contentHashes));
  }
  counts(): Promise<StoreCounts> {
    return this.op((c) => counts(c));
  }
}

/** Open (and create if needed) a SQLite store. Call `init({ dimensions })` before use. */
export function createSqliteStore(opts: SqliteStoreOptions): SqliteMemoryStore {
  return new SqliteMemoryStore(opts);
}
