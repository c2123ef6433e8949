// Converts between Memory records and rows of the memories table. Rows are
// parsed into fresh objects on every read, so callers can never reach the
// stored data through a returned Memory (invariant 5, "copies out").
import { toMs } from '@keepgraph/core/ports';
import { AUTHORITY_RANK } from '@keepgraph/core';
import type { Memory } from '@keepgraph/core';

/** A row of `memories` as SELECT * returns it. */
export interface MemoryRow {
  rid: number;
  id: string;
  owner_id: string;
  kind: string;
  text: string;
  key: string | null;
  origin_json: string;
  source_origins_json: string;
  authority: string;
  authority_rank: number;
  created_at: string;
  created_ms: number;
  valid_from: string;
  valid_from_ms: number;
  valid_to: string | null;
  valid_to_ms: number | null;
  expires_at: string;
  expires_ms: number;
  sensitivity: string;
  tags_json: string;
  confidence: number;
  content_hash: string;
  derived_from_json: string;
  supersedes: string | null;
  superseded_by: string | null;
  conflict: number;
  about_json: string;
  relations_json: string;
  embedding_model: string | null;
  redactions_json: string;
  session_id: string | null;
  turn: string | null;
}

/** Named parameters for queries/insert-memory.sql. */
export type MemoryParams = Omit<MemoryRow, 'rid'>;

/** The row to insert for a memory. */
export function memoryToParams(m: Memory): MemoryParams {
  return {
    id: m.id,
    owner_id: m.ownerId,
    kind: m.kind,
    text: m.text,
    key: m.key,
    origin_json: JSON.stringify(m.origin),
    source_origins_json: JSON.stringify(m.sourceOrigins),
    authority: m.authority,
    authority_rank: AUTHORITY_RANK[m.authority] ?? 0,
    created_at: m.createdAt,
    created_ms: toMs(m.createdAt, 'createdAt'),
    valid_from: m.validFrom,
    valid_from_ms: toMs(m.validFrom, 'validFrom'),
    valid_to: m.validTo,
    valid_to_ms: m.validTo === null ? null : toMs(m.validTo, 'validTo'),
    expires_at: m.expiresAt,
    expires_ms: toMs(m.expiresAt, 'expiresAt'),
    sensitivity: m.sensitivity,
    tags_json: JSON.stringify(m.tags),
    confidence: m.confidence,
    content_hash: m.contentHash,
    derived_from_json: JSON.stringify(m.derivedFrom),
    supersedes: m.supersedes,
    superseded_by: m.supersededBy,
    conflict: m.conflict ? 1 : 0,
    about_json: JSON.stringify(m.about),
    relations_json: JSON.stringify(m.relations),
    embedding_model: m.embeddingModel,
    redactions_json: JSON.stringify(m.redactions),
    session_id: m.origin.sessionId ?? null,
    turn: m.origin.turn ?? null,
  };
}

/** A fresh Memory parsed from a row. */
export function rowToMemory(r: MemoryRow): Memory {
  return {
    id: r.id,
    ownerId: r.owner_id,
    kind: r.kind as Memory['kind'],
    text: r.text,
    key: r.key,
    origin: JSON.parse(r.origin_json) as Memory['origin'],
    sourceOrigins: JSON.parse(r.source_origins_json) as Memory['sourceOrigins'],
    authority: r.authority as Memory['authority'],
    createdAt: r.created_at,
    validFrom: r.valid_from,
    validTo: r.valid_to,
    expiresAt: r.expires_at,
    sensitivity: r.sensitivity as Memory['sensitivity'],
    tags: JSON.parse(r.tags_json) as string[],
    confidence: r.confidence,
    contentHash: r.content_hash,
    derivedFrom: JSON.parse(r.derived_from_json) as string[],
    supersedes: r.supersedes,
    supersededBy: r.superseded_by,
    conflict: r.conflict !== 0,
    about: JSON.parse(r.about_json) as Memory['about'],
    relations: JSON.parse(r.relations_json) as Memory['relations'],
    embeddingModel: r.embedding_model,
    redactions: JSON.parse(r.redactions_json) as string[],
  };
}
