// The graph vocabulary shared by every store adapter: node labels, edge
// types, the relation types the engine knows, and where the SQLite
// migrations live. Adapters import these names instead of spelling them, so
// the SQLite tables and the Neo4j labels stay one schema (DESIGN.md, "Graph
// schema").
import { fileURLToPath } from 'node:url';

/** Node labels. In SQLite each is a table (Owner and Session are columns). */
export const NODE_LABELS = {
  Owner: 'Owner',
  Memory: 'Memory',
  Session: 'Session',
  Source: 'Source',
  Entity: 'Entity',
  AuditEvent: 'AuditEvent',
  ApiKey: 'ApiKey',
} as const;
export type NodeLabel = (typeof NODE_LABELS)[keyof typeof NODE_LABELS];

/** Structural edge types between nodes (not entity relations). */
export const EDGE_TYPES = {
  /** (Memory)-[:OWNED_BY]->(Owner) */
  OWNED_BY: 'OWNED_BY',
  /** (Memory)-[:DERIVED_FROM]->(Memory): derived memory to each of its sources. */
  DERIVED_FROM: 'DERIVED_FROM',
  /** (Memory)-[:SUPERSEDES]->(Memory): a newer version of the same claim. */
  SUPERSEDES: 'SUPERSEDES',
  /** (Memory)-[:OBSERVED_IN {turn}]->(Session) */
  OBSERVED_IN: 'OBSERVED_IN',
  /** (Memory)-[:FROM_SOURCE]->(Source) */
  FROM_SOURCE: 'FROM_SOURCE',
  /** (Memory)-[:ABOUT]->(Entity) */
  ABOUT: 'ABOUT',
} as const;
export type EdgeType = (typeof EDGE_TYPES)[keyof typeof EDGE_TYPES];

/**
 * Relation types between entities that the engine and extractors know.
 * The set is open (any UPPER_SNAKE_CASE type is accepted, see
 * `RELATION_TYPE` in core), these are the ones with agreed meaning.
 */
export const RELATION_TYPES = {
  PREFERS: 'PREFERS',
  PREFERS_AGAINST: 'PREFERS_AGAINST',
  HAS_CONSTRAINT: 'HAS_CONSTRAINT',
  HAS_GOAL: 'HAS_GOAL',
  IS_A: 'IS_A',
  HAS: 'HAS',
  LOCATED_IN: 'LOCATED_IN',
  WORKS_AT: 'WORKS_AT',
  KNOWS: 'KNOWS',
  USES: 'USES',
  PART_OF: 'PART_OF',
  RELATED_TO: 'RELATED_TO',
} as const;
export type KnownRelationType = (typeof RELATION_TYPES)[keyof typeof RELATION_TYPES];

/** Absolute path of the numbered SQLite migrations (`NNNN-name.sql`). */
export const SQLITE_MIGRATIONS_DIR: string = fileURLToPath(new URL('./sqlite/', import.meta.url));

/**
 * The key under which an entity name is matched: Unicode-compatible form,
 * trimmed, inner whitespace collapsed, lower case. Every store must use this
 * same function, or "Alice" found in one store would be missed in another.
 */
export function normalizeEntityName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/gu, ' ').toLowerCase();
}

/** Absolute path of the numbered Neo4j migrations (`NNNN-name.cypher`). */
export const NEO4J_MIGRATIONS_DIR: string = fileURLToPath(new URL('./neo4j/', import.meta.url));

/**
 * Labels only the Neo4j store uses, besides NODE_LABELS: the session buffer,
 * the read log, the audit chain head, the job outbox, and the schema
 * bookkeeping nodes.
 */
export const NEO4J_LABELS = {
  /** One message of the session buffer, `-[:IN_SESSION]->(Session)`. */
  SessionMessage: 'SessionMessage',
  /** Which memories were served to whom (the read log). */
  ReadLog: 'ReadLog',
  /** The single `{id: 1}` node holding the audit chain's last seq and hash. */
  AuditHead: 'AuditHead',
  /** Facts about the database itself, e.g. `{key: 'vector_dimensions'}`. */
  KeepGraphMeta: 'KeepGraphMeta',
  /** The migration ledger: one node per applied migration. */
  SchemaMigration: 'SchemaMigration',
  /** The migration lease: one node per ledger, held while migrating. */
  SchemaLock: 'SchemaLock',
  /** One pending job of the outbox (0005-outbox-and-reflection), by job id. */
  OutboxJob: 'OutboxJob',
  /** The single `{id: 1}` node holding the outbox's last seq (its lock orders writers). */
  OutboxHead: 'OutboxHead',
} as const;

/** Edge types only the Neo4j store uses, besides EDGE_TYPES. */
export const NEO4J_EDGE_TYPES = {
  /**
   * (Entity)-[:RELATION {type, ownerId, assertedBy, reasons}]->(Entity).
   * Relation types are open-ended caller input, and Cypher cannot take a
   * relationship type as a parameter (no dynamic types in Neo4j 5.26
   * Community without APOC), so the type is a property of one generic edge
   * rather than spliced into query text.
   */
  RELATION: 'RELATION',
  /** (SessionMessage)-[:IN_SESSION]->(Session) */
  IN_SESSION: 'IN_SESSION',
} as const;

/** Index names the Neo4j store queries by name (constants, never input). */
export const NEO4J_INDEXES = {
  /** Vector index on Memory.embedding, created at init() for the embedder's dimension. */
  memoryEmbedding: 'memory_embedding',
  /** Full-text index on Memory.text and Memory.ownerKey (0003-full-text). */
  memoryText: 'memory_text',
} as const;
export * from './migration-files.ts';
