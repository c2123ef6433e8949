// The MemoryStore port: everything the engine needs from a store. Every
// method that changes data is one transaction in the store: it either
// happens whole, with its audit events, or not at all. The engine decides
// *what* to write (pure core); the store decides *how*.
import { z } from 'zod';
import type { AuditEventInput, AuditEvent } from '../domain/audit.ts';
import type { Memory, Role } from '../domain/record.ts';

import type {
  CascadeReceipt,
  CascadeRequest,
  DerivedEdge,
  EmbeddingUpdate,
  ExpiryCandidate,
  OutboxEntry,
  OwnerResidue,
  PassDue,
  ReadLogEntry,
  ReadLogQuery,
  RelationEdge,
  ScoredId,
  SearchOptions,
  SessionMessage,
  SessionPredecessor,
  SessionScope,
  SessionSuccessor,
  StoreCounts,
  Trace,
  WriteBatch,
} from './store-types.ts';

export * from './store-types.ts';

/** What every store does before and after the rest. */
export interface StoreLifecycle {
  /** Short name for logs and receipts: 'sqlite', 'neo4j'. */
  readonly kind: string;
  /** Apply migrations; idempotent. `dimensions` sizes the vector index. */
  init(opts: { dimensions: number }): Promise<void>;
  /** The highest migration applied to the store, as init() left it (0 before). */
  readonly schemaVersion: number;
  /** Write what `logReads` has accepted and not yet written. */
  flush(): Promise<void>;
  /** Flush, then release the connection. */
  close(): Promise<void>;
}

/** Memories as records: the atomic write and cascade, reads by id, key, source and owner. */
export interface MemoryRecords {
  /**
   * Atomic: all of the batch or none of it. A duplicate id fails with
   * `conflict`; a derivedFrom naming a memory the owner lacks fails the whole
   * batch with `invalid_input`; supersede marks naming another owner's or an
   * unknown memory are ignored.
   */
  write(batch: WriteBatch): Promise<void>;
  /**
   * Atomic: the roots, their inbound DERIVED_FROM closure, and everything
   * hanging off them. `not_found` when none of the roots is this owner's.
   * Deleting a newer version clears the older one's supersededBy pointer but
   * keeps its validTo: a superseded claim never comes back by deletion.
   */
  deleteCascade(req: CascadeRequest): Promise<CascadeReceipt>;
  getById(ownerId: string, id: string): Promise<Memory | null>;
  /** The owner's memories among `ids`, in the order asked, each once; others are skipped. */
  getByIds(ownerId: string, ids: readonly string[]): Promise<Memory[]>;
  /** Every version stored under (owner, key), newest first, including superseded ones. */
  getByKey(ownerId: string, key: string): Promise<Memory[]>;
  /** Memory ids of the owner whose own or inherited origins name this source uri or tool name (either, when both are given). */
  findBySource(ownerId: string, source: { uri?: string; tool?: string }): Promise<string[]>;
  /** Ids of the owner's memories whose own origin names this session (OBSERVED_IN), sorted. */
  observedIn(ownerId: string, sessionId: string): Promise<string[]>;
  /** All memory ids of an owner (for forgetOwner and export). */
  listIds(ownerId: string, opts?: { after?: string; limit?: number }): Promise<string[]>;
  /**
   * Owners that have at least one memory, in id order; with `after`, only
   * ids after it (a cursor), and at most `limit` of them.
   */
  listOwners(opts?: { after?: string; limit?: number }): Promise<string[]>;
  countMemories(ownerId: string): Promise<number>;
  /** Lowest-value live memories first: for cap eviction. */
  lowestValue(ownerId: string, limit: number): Promise<string[]>;
  /** Memories whose expiresAt <= now, oldest first, across owners (sweeper). */
  dueForExpiry(now: string, limit: number): Promise<ExpiryCandidate[]>;
}

/** The graph around memories: DERIVED_FROM edges, session order, entity relations. */
export interface MemoryGraph {
  /** The memories derived directly from any of `ids` (inbound DERIVED_FROM), as edges, by child id. */
  derivedFrom(ownerId: string, ids: readonly string[]): Promise<DerivedEdge[]>;
  /**
   * For each of `ids` observed in a session: the episode written next in
   * that session of this owner (write order), whether or not it is still
   * valid; ids with no session or no later episode are left out.
   */
  nextInSession(ownerId: string, ids: readonly string[]): Promise<SessionSuccessor[]>;
  /**
   * For each of `ids` observed in a session: the episode written just
   * before it in that session of this owner (write order), whether or not
   * it is still valid; ids with no session or no earlier episode are left out.
   */
  previousInSession(ownerId: string, ids: readonly string[]): Promise<SessionPredecessor[]>;
  relations(ownerId: string, memoryIds?: readonly string[]): Promise<RelationEdge[]>;
}

/** Owner-scoped candidate retrieval: vector, full text, entities. Expired and superseded memories are filtered here, at query time. */
export interface MemorySearch {
  searchVector(ownerId: string, vector: Float32Array, opts: SearchOptions): Promise<ScoredId[]>;
  searchText(ownerId: string, query: string, opts: SearchOptions): Promise<ScoredId[]>;
  /** Live memories ABOUT, or asserting a relation involving, any of the named entities (names normalised by graph-schema's normalizeEntityName). */
  searchEntities(
    ownerId: string,
    names: readonly string[],
    opts: SearchOptions,
  ): Promise<ScoredId[]>;
}

/** The short-term session buffer. */
/** One session of an owner, as a list shows it. */
export const SessionSummarySchema = z.object({
  sessionId: z.string(),
  /** Unexpired messages in its buffer. */
  messages: z.number().int().describe('Unexpired messages in its buffer'),
  /** Unexpired memories observed in it. */
  memories: z.number().int().describe('Unexpired memories observed in it'),
  /** Earliest and latest message or memory time. */
  firstAt: z.string(),
  lastAt: z.string(),
});
export type SessionSummary = z.output<typeof SessionSummarySchema>;

export interface SessionBuffer {
  /** The owner's sessions with unexpired messages or memories, latest activity first. */
  listSessions(ownerId: string, opts: { limit: number; now: string }): Promise<SessionSummary[]>;
  sessionMessages(
    ownerId: string,
    sessionId: string,
    opts: { limit: number; now: string },
  ): Promise<SessionMessage[]>;
  /** Drop the oldest messages of the session beyond `keep`; returns how many went. */
  trimSession(ownerId: string, sessionId: string, keep: number): Promise<number>;
  /** Delete a session's messages, or one of them (by seq); returns how many went. */
  deleteSessionMessages(ownerId: string, scope: SessionScope): Promise<number>;
  /**
   * Forget-owner's last step: delete every session (messages and their
   * session records), read-log row and pending outbox job of the owner.
   */
  deleteOwnerResidue(ownerId: string): Promise<OwnerResidue>;
}

/** Which memories were served to whom (blast radius of a poisoned memory). */
export interface ReadLog {
  /**
   * Record reads and the audit events that go with them, in one
   * transaction. Through the store kit this is a group commit (see
   * `ReadJournal`): it resolves once the entries are accepted, and they are
   * written within the store's flush interval, before any other operation
   * that writes or reads the read log or the audit, and on `flush()` and
   * `close()`. A crash loses at most the last interval's reads.
   */
  logReads(reads: readonly ReadLogEntry[], audit: readonly AuditEventInput[]): Promise<void>;
  /**
   * The owner's read-log entries, newest first by `at` (entries of one
   * instant in no set order): which memories were served to whom. With
   * `memoryId`, only the reads that served it; with `before` (an ISO time
   * as the engine writes them, UTC with milliseconds), only reads strictly
   * before it.
   */
  readLog(ownerId: string, opts: ReadLogQuery): Promise<ReadLogEntry[]>;
}

/** Jobs recorded in the same transaction as the write or cascade that caused them. */
export interface JobOutbox {
  /**
   * The outbox: jobs recorded by write() and deleteCascade() (which records a
   * `rederive` job per receipt.rederive entry, built by core's rederiveJob, in
   * its own transaction). Oldest first, across owners: the relay's read.
   */
  outboxPending(limit: number): Promise<OutboxEntry[]>;
  /** Remove relayed jobs from the outbox by job id; unknown ids are ignored. */
  outboxAck(jobIds: readonly string[]): Promise<void>;
}

/** What the background jobs read to decide their work. */
export interface ReflectionBookkeeping {
  /** Live (not expired at `now`, not superseded) episodes not yet reflected, oldest first. */
  unreflectedEpisodes(ownerId: string, opts: { now: string; limit: number }): Promise<Memory[]>;
  /**
   * How many of those there are, counting at most `upTo` (the trigger only
   * asks whether a threshold is reached: a backlog must not make every write
   * count it whole).
   */
  countUnreflected(ownerId: string, now: string, upTo?: number): Promise<number>;
  /**
   * The owner's newest live source memories (no DERIVED_FROM of their own),
   * newest first by write order: what compaction looks at. Live as
   * unreflectedEpisodes defines it (not expired at `now`, not superseded,
   * inside the validity window).
   */
  recentSources(ownerId: string, opts: { now: string; limit: number }): Promise<Memory[]>;
}

/**
 * What the scheduled passes read to visit only the owners that changed: one
 * job per owner written since the schedule's last pass over it, not every
 * owner every hour.
 */
export interface ScheduledPasses {
  /**
   * The owners due for `schedule`, in owner id order; with `after`, only
   * owners after it (a cursor), at most `limit`. Only due owners are kept,
   * so the cost follows the owners written since, not the store's size.
   */
  duePasses(schedule: string, opts: { after?: string; limit: number }): Promise<PassDue[]>;
}

/** Vectors by memory, for re-embedding and compaction. */
export interface EmbeddingStore {
  /** Ids of the owner's memories whose embeddingModel is not `model`, oldest first. */
  staleEmbeddings(ownerId: string, model: string, limit: number): Promise<string[]>;
  /** Atomic: replace these memories' vectors and embeddingModel; ids the owner lacks are ignored. */
  replaceEmbeddings(ownerId: string, updates: readonly EmbeddingUpdate[]): Promise<void>;
  /** The stored vectors of these memories of the owner (ids it lacks, or stored without a vector, are left out), in no particular order. */
  getEmbeddings(
    ownerId: string,
    ids: readonly string[],
  ): Promise<{ id: string; embedding: Float32Array }[]>;
}

/** The hash-chained audit log. */
export interface AuditLog {
  /** Audit: operators and verification only. */
  appendAudit(events: AuditEventInput[]): Promise<void>;
  listAudit(opts: { ownerId?: string; afterSeq?: number; limit: number }): Promise<AuditEvent[]>;
}

/** Proof of deletion and figures for operators. */
export interface Verification {
  /** Look everywhere (rows, vector index, full-text index, edges, session buffer, keys) for these ids or hashes. */
  findTraces(
    ownerId: string,
    ids: readonly string[],
    contentHashes: readonly string[],
  ): Promise<Trace[]>;
  /**
   * Store-wide figures, or one owner's (`owners` is then 0 or 1); `now`
   * (ISO) leaves memories expired by then out of `medianCreatedMs`.
   */
  counts(opts?: { ownerId?: string; now?: string }): Promise<StoreCounts>;
}

/**
 * An API key as stored: never the key itself, only its SHA-256 (`keyHash`),
 * so a copy of the database authenticates nobody. Kept in the store so that
 * every API process over it sees a revocation on the next request.
 */
export interface ApiKeyRecord {
  /** Public id, also inside the key (`kgk_<id>_<secret>`): lists and audit events name it. */
  id: string;
  name: string;
  role: Role;
  /** Every owner, or these. */
  owners: 'all' | string[];
  /** Hex SHA-256 of the whole key. */
  keyHash: string;
  createdAt: string;
  /** The principal that created it. */
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** API keys, each change in one transaction with its audit event. */
export interface ApiKeys {
  /** Insert a key and its `key_created` event; an id already present is `conflict`. */
  saveApiKey(key: ApiKeyRecord, audit: AuditEventInput): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** Every key, revoked ones too, oldest first. */
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /**
   * Mark a key revoked at `revokedAt` and append its `key_revoked` event;
   * false (and nothing written) when no key has that id or it is already revoked.
   */
  revokeApiKey(id: string, revokedAt: string, audit: AuditEventInput): Promise<boolean>;
}

/**
 * The first answer to a write sent with an Idempotency-Key, kept for 24 h so
 * a repeat is answered with it and writes nothing. Its body may hold memory
 * text, so the cascade of a memory it names drops the body (`forgotten`),
 * forgetOwner deletes the owner's records, and each expires.
 */
export interface IdempotencyRecord {
  /**
   * Whose key it is: a keyed hash of the credential's principal, role and
   * owners (one caller cannot replay another's answer, nor a credential
   * whose rights changed the answer of its former rights).
   */
  scope: string;
  /** A keyed hash of the Idempotency-Key, never the key: a client may send anything there. */
  key: string;
  /** The owner the request wrote to, if any. */
  ownerId: string | null;
  /** Hex SHA-256 of the request (method, path, body): the same key with another request is refused. */
  requestHash: string;
  createdAt: string;
  expiresAt: string;
  /** Null while the first request is still running, and once `forgotten`. */
  response: KeptAnswer | null;
  /** The memory ids the answer names. */
  memoryIds: string[];
  /**
   * A memory the answer named was deleted: the cascade dropped the answer
   * (it may hold the memory's text) and its ids, and kept the record, so a
   * repeat still writes nothing.
   */
  forgotten: boolean;
}

/**
 * What a record keeps of an answer (core's `keptAnswer` decides): of an
 * error, its status and `{ error: { code } }` only; of a success, its body
 * less the values equal to the request's path parameters, whose places
 * `params` lists (the repeat's own parameters fill them on replay).
 */
export interface KeptAnswer {
  status: number;
  body: unknown;
  /**
   * Where a path parameter's value was in the body: the path to it, the
   * parameter's name, and whether it was there in NFC (as the engine parses ids).
   */
  params?: { path: (string | number)[]; name: string; nfc?: true }[];
}

/** Idempotency records: claim a key, record its answer, or let it go. */
export interface IdempotencyRecords {
  /**
   * Take (scope, key) for a request: insert `record` as pending and return
   * null, unless a record that has not expired at `record.createdAt` holds
   * the pair; then insert nothing and return that one. Atomic across
   * processes: of many concurrent claims exactly one returns null. Expired
   * records are purged on the way.
   */
  claimIdempotency(
    record: Omit<IdempotencyRecord, 'response' | 'memoryIds' | 'forgotten'>,
  ): Promise<IdempotencyRecord | null>;
  /** Record the claimed request's answer (and the memories it names). */
  completeIdempotency(
    scope: string,
    key: string,
    response: KeptAnswer,
    memoryIds: readonly string[],
  ): Promise<void>;
  /**
   * Drop the pending claim made at `createdAt` (the request failed with
   * nothing worth replaying, or its process died); a newer claim or a
   * recorded answer stays.
   */
  releaseIdempotency(scope: string, key: string, createdAt: string): Promise<void>;
}

/**
 * The store contract, by concern. Implementations: SQLite (embedded), Neo4j
 * (server); each is assembled by the store kit (store-kit.ts) from one
 * function per member, and the conformance suite
 * (`packages/store-conformance`) proves each one
 * (docs/implementing-a-store.md says what a store writes).
 *
 * Every read is scoped to one owner, except the audit log, the expiry scan
 * and the counts, which serve operators and the sweeper.
 */
export interface MemoryStore
  extends
    StoreLifecycle,
    MemoryRecords,
    MemoryGraph,
    MemorySearch,
    SessionBuffer,
    ReadLog,
    JobOutbox,
    ReflectionBookkeeping,
    ScheduledPasses,
    EmbeddingStore,
    AuditLog,
    IdempotencyRecords,
    Verification,
    ApiKeys {}
