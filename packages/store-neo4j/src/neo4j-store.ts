// The server MemoryStore: the graph in Neo4j through neo4j-driver, Cypher
// with parameters only, one managed transaction per changing operation. The
// operations live in their own modules; this class owns the driver,
// initialises the schema and maps errors at the boundary.
import { enableTcpNoDelayForDriverSockets } from './tcp-no-delay.ts';
import { RecentSizes } from './recent-sizes.ts';
import { KeepGraphError } from '@keepgraph/core';
import {
  KitStore,
  type KitOptions,
  type StoreOperations,
  type EntityPlan,
  type ScoredId,
  type SearchOptions,
  type StoreRules,
} from '@keepgraph/core/ports';
import neo4j from 'neo4j-driver';
import type { Driver } from 'neo4j-driver';
import * as apiKeys from './api-keys.ts';
import * as idempotency from './idempotency.ts';
import { appendAuditEvents, listAuditEvents } from './audit-log.ts';
import { deleteCascade } from './delete-cascade.ts';
import * as embeddings from './embeddings.ts';
import { findTraces } from './find-traces.ts';
import * as graph from './graph-reads.ts';
import * as records from './memory-reads.ts';
import { migrate } from './migrate.ts';
import { neo4jDriverError } from './neo4j-errors.ts';
import * as outbox from './outbox.ts';
import * as reflection from './reflection.ts';
import * as scheduledPasses from './scheduled-passes.ts';
import * as search from './search.ts';
import type { VectorPath } from './search.ts';
import * as sessions from './session-buffer.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite } from './transactions.ts';
import { writeBatch } from './write-batch.ts';

/** The port's members over a Neo4j context; every changing one is one managed transaction. */
const OPERATIONS: StoreOperations<StoreContext> = {
  write: writeBatch,
  deleteCascade,
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
  deleteSessionMessages: sessions.deleteSessionMessages,
  deleteOwnerResidue: sessions.deleteOwnerResidue,
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
  appendAudit: async (c, events) => {
    await inWrite(c, (tx) => appendAuditEvents(tx, c.rules, events));
  },
  listAudit: listAuditEvents,
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

/** The driver's own default for maxTransactionRetryTime. */
const DEFAULT_RETRY_MS = 30_000;

/** Options of createNeo4jStore. Give `uri` (the store owns its driver) or `driver` (the caller's). */
export interface Neo4jStoreOptions extends KitOptions {
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
  /**
   * How long one operation waits for the database, from its start, in ms
   * (default 30000, the driver's): retriable errors are retried within it
   * (retry.ts). It also bounds the driver's connect and its own retries at init.
   */
  maxTransactionRetryTimeMs?: number;
  /** Directory of numbered migrations (default: graph-schema/neo4j). For tests. */
  migrationsDir?: string;
  /**
   * Test hook: called between the statements of a cascade transaction with
   * the statement's name (e.g. 'cascade-delete'). Default none.
   */
  onCascadeStep?: (step: string) => Promise<void> | void;
}

/** The Neo4j MemoryStore, with the extras tests and the CLI use. */
export class Neo4jMemoryStore extends KitStore<StoreContext> {
  readonly kind = 'neo4j';
  /** The driver (the store's own, or the caller's). Tests read through it. */
  readonly driver: Driver;
  readonly database: string | undefined;
  private readonly ownsDriver: boolean;

  constructor(private readonly opts: Neo4jStoreOptions) {
    super(OPERATIONS, opts);
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
        // A connect that hangs (a host that drops packets) waits no longer than an operation may.
        ...(opts.maxTransactionRetryTimeMs === undefined
          ? {}
          : {
              maxTransactionRetryTime: opts.maxTransactionRetryTimeMs,
              connectionTimeout: Math.max(1000, opts.maxTransactionRetryTimeMs),
            }),
      });
      this.ownsDriver = true;
    }
    this.database = opts.database;
  }

  protected async open(opts: {
    dimensions: number;
    rules: StoreRules;
  }): Promise<{ context: StoreContext; schemaVersion: number }> {
    const { current } = await migrate(this.driver, {
      ...(this.database === undefined ? {} : { database: this.database }),
      ...(this.opts.migrationsDir === undefined ? {} : { dir: this.opts.migrationsDir }),
      dimensions: opts.dimensions,
    });
    const context: StoreContext = {
      driver: this.driver,
      database: this.database,
      dimensions: opts.dimensions,
      rules: opts.rules,
      exactSearchThreshold: this.opts.exactSearchThreshold ?? DEFAULT_EXACT_SEARCH_THRESHOLD,
      retryMs: this.opts.maxTransactionRetryTimeMs ?? DEFAULT_RETRY_MS,
      reach: { givenUp: false },
      onCascadeStep: this.opts.onCascadeStep,
      recentSizes: new RecentSizes(),
    };
    return { context, schemaVersion: current };
  }

  protected async shutdown(): Promise<void> {
    if (this.ownsDriver) await this.driver.close();
  }

  protected driverError(e: unknown) {
    return neo4jDriverError(e);
  }

  /** searchVector forced onto one path ('exact' or 'index'): for tests and benchmarks. */
  searchVectorVia(
    path: VectorPath,
    ownerId: string,
    vector: Float32Array,
    opts: SearchOptions,
  ): Promise<ScoredId[]> {
    return this.run((c) => search.searchVector(c, ownerId, vector, opts, path));
  }

  /** searchEntities on one plan ('hits' or 'walk'), or the chosen one; says which ran. */
  searchEntitiesVia(
    plan: EntityPlan | undefined,
    ownerId: string,
    names: readonly string[],
    opts: SearchOptions,
  ): Promise<{ hits: ScoredId[]; chosen: EntityPlan }> {
    return this.run((c) => search.searchEntitiesWithPlan(c, ownerId, names, opts, plan));
  }
}

/** Connect a Neo4j store. Call `init({ dimensions })` before use. */
export function createNeo4jStore(opts: Neo4jStoreOptions): Neo4jMemoryStore {
  return new Neo4jMemoryStore(opts);
}
