// The records the MemoryStore port (memory-store.ts) takes and gives: the
// atomic write and its cascade, receipts, search hits, session messages,
// read-log entries, outbox entries. Data only; the interfaces are there.
import { z } from 'zod';
import type { AuditEventInput } from '../domain/audit.ts';
import {
  MEMORY_KINDS,
  ROLES,
  type Memory,
  type EntityRef,
  type MemoryKind,
  type MessageRole,
} from '../domain/record.ts';
import type { Job } from './job-queue.ts';

/** A memory to insert, with its embedding. */
export interface MemoryWrite {
  memory: Memory;
  embedding: Float32Array | null;
}

/** One atomic write: new memories, supersession marks, and audit events. */
export interface WriteBatch {
  memories: MemoryWrite[];
  /** Mark these (owner-scoped) memories as superseded by `by` at `at`. */
  supersede: { ownerId: string; id: string; by: string; at: string }[];
  /** Session-buffer messages to append alongside (e.g. session append). */
  sessionMessages: SessionMessage[];
  audit: AuditEventInput[];
  /**
   * Jobs this write triggers, recorded in the store's outbox in the same
   * transaction (a relay moves them to the queue), so a queue outage loses
   * none. A job id already pending in the outbox is not recorded twice.
   */
  jobs?: Job[];
  /** Mark these episodes (owner-scoped) as reflected at `at`: reflection's own bookkeeping. */
  reflected?: { ownerId: string; ids: string[]; at: string }[];
  /**
   * Compare-and-set for keyed writes: the versions of each key that the
   * write's supersession decision read as not superseded. Inside its
   * transaction, after the owner's lock, the store reads them again and
   * refuses the whole batch with `conflict` (`details.reason: 'key_changed'`)
   * when they differ, so two writers of one key cannot both become current;
   * the engine then decides again from a fresh read.
   */
  keys?: KeyExpectation[];
  /**
   * Make the batch's owners due for these scheduled passes (a fresh token
   * each time): what a memory write sets for the consolidation schedules,
   * so their next pass visits this owner and no owner without writes.
   */
  due?: { schedule: string; ownerId: string }[];
  /**
   * A scheduled pass has recorded its job for these owners (in this batch's
   * `jobs`): each stops being due, unless it was made due again since it
   * was read (its token changed), so a write racing the pass is not lost.
   */
  passed?: PassDue[];
}

/** An owner due for a scheduled pass: written since the schedule's last pass over it. */
export interface PassDue {
  schedule: string;
  ownerId: string;
  /** Changes whenever the owner is made due again (compared when the pass clears it). */
  token: string;
}

/** What a keyed write saw: the ids of the key's versions not superseded then. */
export interface KeyExpectation {
  ownerId: string;
  key: string;
  currentIds: string[];
}

export const DELETION_REASONS = [
  'forget',
  'expire',
  'cap',
  'revoke_source',
  'forget_owner',
  // A session's memories and what was derived from them.
  'forget_session',
  // What was derived from a corrected memory (re-derived from the correction).
  'correct',
  // A restore replacing a store's memories with a backup's (not a forgetting: never applied again).
  'restore',
] as const;
export type DeletionReason = (typeof DELETION_REASONS)[number];

/** A rederive entry as a receipt shows it. */
export const RederiveNoteSchema = z.object({
  id: z.string(),
  kind: z.enum(MEMORY_KINDS),
  tags: z.array(z.string()),
  /** How many of its sources survive (its job rebuilds it from them). */
  survivingSourceCount: z
    .number()
    .int()
    .describe('How many of its sources survive: its re-derivation reads them'),
});
export type RederiveNote = z.output<typeof RederiveNoteSchema>;

/** What a cascade removed. Ids only: a receipt never repeats deleted content. */
export const DeletionReceiptSchema = z
  .object({
    ownerId: z.string(),
    reason: z.enum(DELETION_REASONS),
    requested: z.array(z.string()),
    /** Every memory id removed, roots and derived. */
    deletedMemoryIds: z.array(z.string()),
    /** Content hashes of the removed memories (so verifyForgotten can look for them). */
    deletedContentHashes: z.array(z.string()),
    embeddingsDeleted: z.number(),
    fullTextEntriesDeleted: z.number(),
    relationEdgesDeleted: z.number(),
    entitiesDeleted: z.number(),
    sessionMessagesDeleted: z.number(),
    /**
     * Derived memories that lost a source but had others that survive: to
     * re-derive. Counts, not the survivors' ids: a forget of a source a
     * thousand summaries share must not answer with every id of every one.
     */
    rederive: z.array(RederiveNoteSchema),
    at: z.string(),
  })
  .describe('What a deletion cascade removed (ids and hashes, never content)');
export type DeletionReceipt = z.output<typeof DeletionReceiptSchema>;

/**
 * What a store's cascade returns: the receipt, with each rederive entry's
 * surviving sources (its job reads them). The engine answers callers with
 * the receipt (services/cascade.ts, toDeletionReceipt).
 */
export interface CascadeReceipt extends Omit<DeletionReceipt, 'rederive'> {
  rederive: RederiveEntry[];
}

/** A deleted derived memory whose other sources survive, and what kind it was (kind and tags). */
export interface RederiveEntry {
  id: string;
  kind: MemoryKind;
  /** Its tags: which job builds it again (compaction's summaries and reflection's differ). */
  tags: string[];
  survivingSources: string[];
}

export interface CascadeRequest {
  ownerId: string;
  rootIds: string[];
  reason: DeletionReason;
  at: string;
  /** Audit events to append in the same transaction; the store adds the receipt summary to the first. */
  audit: AuditEventInput[];
  /**
   * Milliseconds since the deletion request reached the engine (the
   * engine's clock), read by the store as the last step of its transaction,
   * just before the commit: the first audit event records it as
   * `details.durationMs`, the deletion-propagation KPI.
   */
  elapsedMs?: () => number;
  /**
   * This request is one step of a wider cascade, which the engine deletes in
   * steps so that no one transaction holds the store for long (services/cascade.ts,
   * cascade): its rootIds are any members of the wider closure, deepest
   * first. A root that is not among `requestedRoots` is a derived memory of
   * that cascade, re-derived when it keeps a source outside `deletedByCascade`
   * (every id the wider cascade deletes) and outside this step.
   */
  step?: { requestedRoots: string[]; deletedByCascade: string[] };
}

/** Something left behind that should have been forgotten. Empty list = proven gone. */
export const TraceSchema = z.object({
  where: z.string(),
  id: z.string().optional(),
  detail: z.string().optional(),
});
export type Trace = z.output<typeof TraceSchema>;

export interface ScoredId {
  id: string;
  /** Vector: cosine similarity in [-1, 1]. Text: BM25-like score, higher is better. */
  score: number;
}

export interface SearchOptions {
  limit: number;
  /** Exclude memories expired at this instant, superseded, or not yet valid. */
  now: string;
}

export interface RelationEdge {
  ownerId: string;
  subject: EntityRef;
  type: string;
  object: EntityRef;
  reasons: string[];
  assertedBy: string[];
}

/** Who appended a session message: the principal and role of its credentials. */
export const SessionWriterSchema = z.object({
  principal: z
    .string()
    .describe('The principal of the credentials that appended it (`key:<id>`, `jwt:<sub>`)'),
  role: z.enum(ROLES).describe("That credential's role"),
});
export type SessionWriter = z.output<typeof SessionWriterSchema>;

/**
 * A message's writer as answers show it: null only for messages stored
 * before writers were recorded (see SessionMessage.writer).
 */
export const MessageWriterSchema = SessionWriterSchema.nullable().describe(
  'Who appended the message; null for a message stored before writers were recorded (rendered untrusted)',
);

export interface SessionMessage {
  ownerId: string;
  sessionId: string;
  role: MessageRole;
  text: string;
  at: string;
  expiresAt: string;
  /** The long-term memory that holds a copy, if any (deleted with it). */
  memoryId: string | null;
  /**
   * Who appended it. Null only for messages stored before writers were
   * recorded: nobody can say who wrote those, so they are read as unknown
   * and rendered as untrusted.
   */
  writer: SessionWriter | null;
  /**
   * The message's number, set by the store on read: unique within its
   * session and growing with each append (the id a delete names).
   */
  seq?: number;
}

/** Which session-buffer messages to delete: a whole session, or one message of it. */
export interface SessionScope {
  sessionId: string;
  seq?: number;
}

/** What an owner leaves outside its memories, deleted with the owner. */
export interface OwnerResidue {
  sessionMessages: number;
  readLogRows: number;
  outboxJobs: number;
  idempotencyRecords: number;
}

export interface ReadLogEntry {
  ownerId: string;
  requestId: string;
  principal: string;
  /** Keyed hash of the caller's session id (see `KeyedHash`), never the id. */
  sessionId: string | null;
  memoryIds: string[];
  at: string;
}

/** Which read-log entries to list (see ReadLog.readLog). */
export interface ReadLogQuery {
  limit: number;
  memoryId?: string;
  before?: string;
}

export interface ExpiryCandidate {
  ownerId: string;
  id: string;
  expiresAt: string;
}

export interface StoreCounts {
  owners: number;
  memories: number;
  /** Memories with origin, authority, createdAt and expiresAt (should equal memories). */
  attributed: number;
  byKind: Record<string, number>;
  byAuthority: Record<string, number>;
  /**
   * The median createdAt (epoch ms) of the live memories: not superseded,
   * and not expired at `now` when counts() is given one. The lower median
   * for an even count; null when there are none.
   */
  medianCreatedMs: number | null;
}

/** One DERIVED_FROM edge: `child` was derived from `source`. */
export interface DerivedEdge {
  source: string;
  child: string;
}

/** A job waiting in the store's outbox for the relay. */
export interface OutboxEntry {
  job: Job;
  recordedAt: string;
}

/** A new embedding for a stored memory (re-embedding after a model change). */
export interface EmbeddingUpdate {
  id: string;
  embedding: Float32Array;
  model: string;
}

/** An episode and the one written after it in the same session. */
export interface SessionSuccessor {
  after: string;
  memory: Memory;
}

/** An episode and the one written before it in the same session. */
export interface SessionPredecessor {
  before: string;
  memory: Memory;
}
