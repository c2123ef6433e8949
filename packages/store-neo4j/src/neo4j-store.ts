// The server MemoryStore: the graph in Neo4j through neo4j-driver, Cypher
// with parameters only, one managed transaction per changing operation. The
// operations live in their own modules; this class owns the driver,
// initialises the schema and maps errors at the boundary.
import { enableTcpNoDelayForDriverSockets } from './tcp-no-delay.ts';
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
import neo4j from 'neo4j-driver';
import type { Driver } from 'neo4j-driver';
import { appendAuditEvents, listAuditEvents } from './audit-log.ts';
import { deleteCascade } from './delete-cascade.ts';
import { getEmbeddings, replaceEmbeddings, staleEmbeddings } from './embeddings.ts';
import { findTraces } from './find-traces.ts';
import { counts, relations } from './graph-reads.ts';
import * as reads from './memory-reads.ts';
import { migrate } from './migrate.ts';
import { mapErrors } from './neo4j-errors.ts';
import { outboxAck, outboxPending } from './outbox.ts';
import { countUnreflected, recentSources, unreflectedEpisodes } from './reflection.ts';
import { searchEntities, searchText, searchVector } from './search.ts';
import type { VectorPath } from './search.ts';
import {
  deleteOwnerResidue,
  deleteSessionMessages,
  logRead,
  readLog,
  sessionMessages,
  trimSession,
} from './session-buffer.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite } from './transactions.ts';
import { writeBatch } from './write-batch.ts';

/**
 * Default owner size from which vector search uses the ANN index instead of
 * exact scoring. Measured by bench/vector-crossover.ts (200k memories in one
 * database, 2 cores, bench/README.md): exact p50 12 / 31 / 74 / 183 ms for
 * owners of 100 / 1k / 3k / 10k memories, the oversampled index 257 / 138 /
 * 76 / 51 ms, with index recall@10 against exact of 1.0 / 1.0 / 0.995 /
 * 0.982. The p50 curves cross near 3,000 and exact keeps the better p95 up
 * to there, so 4,000. Tune per deployment. Either way a small owner keeps
 * its results: the index path falls back to exact scoring when it cannot
 * find enough of the owner's live hits among other owners' neighbours.
 */
export const DEFAULT_EXACT_SEARCH_THRESHOLD = 4_000;

/** Options of createNeo4jStore. Give `uri` (the store owns its driver) or `driver` (the caller's). */
export interface Neo4jStoreOptions {
  /** bolt:// or neo4j:// URI. */
  uri?: string;
  user?: string;
  password?: string;
  /** Database name (default: the server's default database). */
  database?: string;
  /** A driver the caller owns and closes; the store then ignores uri/user/password. */
  driver?: Driver;
  /** Owners with fewer memories are searched by exact cosine scoring (default 2000). */
  exactSearchThreshold?: number;
  /** How long managed transactions retry transient errors, in ms (driver default 30000). */
  maxTransactionRetryTimeMs?: number;
  /** Directory of numbered migrations (default: graph-schema/neo4j). For tests. */
  migrationsDir?: string;
  /**
   * Test hook: called between the statements of a cascade transaction with
   * the statement's name (e.g. 'cascade-delete-memories'). Default none.
   */
  onCascadeStep?: (step: string) => Promise<void> | void;
}

/** The Neo4j MemoryStore, with the extras tests and the CLI use. */
export class Neo4jMemoryStore implements MemoryStore {
  readonly kind = 'neo4j';
  /** The driver (the store's own, or the caller's). Tests read through it. */
  readonly driver: Driver;
  readonly database: string | undefined;
  private readonly ownsDriver: boolean;
  private ctx: StoreContext | null = null;
  private closed = false;

  constructor(private readonly opts: Neo4jStoreOptions) {
    if (opts.driver) {
      this.driver = opts.driver;
      this.ownsDriver = false;
    } else {
      if (!opts.uri)
        throw new KeepGraphError('invalid_input', 'createNeo4jStore needs a uri or a driver');
      // No user: no auth token (a server with auth disabled, like the test server).
      const auth =
        opts.user === undefined ? undefined : neo4j.auth.basic(opts.user, opts.password ?? '');
      enableTcpNoDelayForDriverSockets();
      this.driver = neo4j.driver(opts.uri, auth, {
        // Plain numbers back: every integer the store keeps fits in 2^53.
        disableLosslessIntegers: true,
        ...(opts.maxTransactionRetryTimeMs === undefined
          ? {}
          : { maxTransactionRetryTime: opts.maxTransactionRetryTimeMs }),
      });
      this.ownsDriver = true;
    }
    this.database = opts.database;
  }

  /** The initialised context; operations before init() are a programming error. */
  private get c(): StoreContext {
    if (this.closed) throw new KeepGraphError('store_unavailable', 'the store is closed');
    if (!this.ctx)
      throw new KeepGraphError('store_unavailable', 'call init() before using the store');
    return this.ctx;
  }

  /** Run a store operation with its errors mapped to KeepGraphError codes. */
  private op<T>(fn: (ctx: StoreContext) => Promise<T>): Promise<T> {
    return mapErrors(() => fn(this.c));
  }

  async init(opts: { dimensions: number }): Promise<void> {
    if (this.closed) throw new KeepGraphError('store_unavailable', 'the store is closed');
    await mapErrors(() =>
      migrate(this.driver, {
        ...(this.database === undefined ? {} : { database: this.database }),
        ...(this.opts.migrationsDir === undefined ? {} : { dir: this.opts.migrationsDir }),
        dimensions: opts.dimensions,
      }),
    );
    this.ctx = {
      driver: this.driver,
      database: this.database,
      dimensions: opts.dimensions,
      exactSearchThreshold: this.opts.exactSearchThreshold ?? DEFAULT_EXACT_SEARCH_THRESHOLD,
      onCascadeStep: this.opts.onCascadeStep,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ctx = null;
    if (this.ownsDriver) await this.driver.close();
  }

  write(batch: WriteBatch): Promise<void> {
    return this.op((c) => writeBatch(c, batch));
  }
  deleteCascade(req: CascadeRequest): Promise<DeletionReceipt> {
    return this.op((c) => deleteCascade(c, req));
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
  /** searchVector forced onto one path ('exact' or 'index'): for tests and benchmarks. */
  searchVectorVia(
    path: VectorPath,
    ownerId: string,
    vector: Float32Array,
    opts: SearchOptions,
  ): Promise<ScoredId[]> {
    return this.op((c) => searchVector(c, ownerId, vector, opts, path));
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
    return this.op((c) => deleteSessionMessages(c, ownerId, scope));
  }
  deleteOwnerResidue(ownerId: string): Promise<OwnerResidue> {
    return this.op((c) => deleteOwnerResidue(c, ownerId));
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
    return this.op(async (c) => {
      await inWrite(c, (tx) => appendAuditEvents(tx, events));
    });
  }
  listAudit(opts: { ownerId?: string; afterSeq?: number; limit: number }): Promise<AuditEvent[]> {
    return this.op((c) => listAuditEvents(c, opts));
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

/** Connect a Neo4j store. Call `init({ dimensions })` before use. */
export function createNeo4jStore(opts: Neo4jStoreOptions): Neo4jMemoryStore {
  return new Neo4jMemoryStore(opts);
}
