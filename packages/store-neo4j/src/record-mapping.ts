// Converts between Memory records and Memory node properties. Scalars are
// properties (with epoch-millisecond copies of times for range filters),
// nested fields are JSON strings, lists of strings are list properties.
// Nodes are parsed into fresh objects on every read, so callers can never
// reach stored data through a returned Memory (invariant 5, "copies out").
import { toMs } from '@keepgraph/core/ports';
import { createHash } from 'node:crypto';
import { AUTHORITY_RANK } from '@keepgraph/core';
import type { Memory } from '@keepgraph/core';
import { num } from './transactions.ts';

/**
 * The owner's token in the full-text index: a hash, so it is one Lucene
 * term whatever characters the owner id holds (an id is never parsed as
 * query syntax), and the same on the write and the query side.
 */
export function ownerKey(ownerId: string): string {
  return `k${createHash('sha256').update(ownerId).digest('hex').slice(0, 40)}`;
}

/** Properties of a Memory node (the embedding is set separately). */
export interface MemoryProps {
  id: string;
  ownerId: string;
  ownerKey: string;
  kind: string;
  text: string;
  key: string | null;
  origin: string;
  sourceOrigins: string;
  authority: string;
  authorityRank: number;
  createdAt: string;
  createdMs: number;
  validFrom: string;
  validFromMs: number;
  validTo: string | null;
  validToMs: number | null;
  expiresAt: string;
  expiresMs: number;
  sensitivity: string;
  tags: string[];
  confidence: number;
  contentHash: string;
  derivedFrom: string;
  supersedes: string | null;
  supersededBy: string | null;
  conflict: boolean;
  about: string;
  relations: string;
  embeddingModel: string | null;
  redactions: string[];
  sessionId: string | null;
  turn: string | null;
}

/** The node properties for a memory (null values are simply not stored). */
export function memoryToProps(m: Memory): MemoryProps {
  return {
    id: m.id,
    ownerId: m.ownerId,
    ownerKey: ownerKey(m.ownerId),
    kind: m.kind,
    text: m.text,
    key: m.key,
    origin: JSON.stringify(m.origin),
    sourceOrigins: JSON.stringify(m.sourceOrigins),
    authority: m.authority,
    authorityRank: AUTHORITY_RANK[m.authority] ?? 0,
    createdAt: m.createdAt,
    createdMs: toMs(m.createdAt, 'createdAt'),
    validFrom: m.validFrom,
    validFromMs: toMs(m.validFrom, 'validFrom'),
    validTo: m.validTo,
    validToMs: m.validTo === null ? null : toMs(m.validTo, 'validTo'),
    expiresAt: m.expiresAt,
    expiresMs: toMs(m.expiresAt, 'expiresAt'),
    sensitivity: m.sensitivity,
    tags: [...m.tags],
    confidence: m.confidence,
    contentHash: m.contentHash,
    // JSON, not a list property: the caller's order is part of the record.
    derivedFrom: JSON.stringify(m.derivedFrom),
    supersedes: m.supersedes,
    supersededBy: m.supersededBy,
    conflict: m.conflict,
    about: JSON.stringify(m.about),
    relations: JSON.stringify(m.relations),
    embeddingModel: m.embeddingModel,
    redactions: [...m.redactions],
    sessionId: m.origin.sessionId ?? null,
    turn: m.origin.turn ?? null,
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : String(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : str(v));
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);

/** A fresh Memory parsed from a node's properties (absent property = null). */
export function propsToMemory(p: Record<string, unknown>): Memory {
  return {
    id: str(p.id),
    ownerId: str(p.ownerId),
    kind: str(p.kind) as Memory['kind'],
    text: str(p.text),
    key: strOrNull(p.key),
    origin: JSON.parse(str(p.origin)) as Memory['origin'],
    sourceOrigins: JSON.parse(str(p.sourceOrigins)) as Memory['sourceOrigins'],
    authority: str(p.authority) as Memory['authority'],
    createdAt: str(p.createdAt),
    validFrom: str(p.validFrom),
    validTo: strOrNull(p.validTo),
    expiresAt: str(p.expiresAt),
    sensitivity: str(p.sensitivity) as Memory['sensitivity'],
    tags: strList(p.tags),
    confidence: num(p.confidence),
    contentHash: str(p.contentHash),
    derivedFrom: JSON.parse(str(p.derivedFrom)) as string[],
    supersedes: strOrNull(p.supersedes),
    supersededBy: strOrNull(p.supersededBy),
    conflict: p.conflict === true,
    about: JSON.parse(str(p.about)) as Memory['about'],
    relations: JSON.parse(str(p.relations)) as Memory['relations'],
    embeddingModel: strOrNull(p.embeddingModel),
    redactions: strList(p.redactions),
  };
}

/** The properties {@link propsToMemory} reads: a memory's, less its embedding. */
const MEMORY_PROPERTIES = [
  'id',
  'ownerId',
  'kind',
  'text',
  'key',
  'origin',
  'sourceOrigins',
  'authority',
  'createdAt',
  'validFrom',
  'validTo',
  'expiresAt',
  'sensitivity',
  'tags',
  'confidence',
  'contentHash',
  'derivedFrom',
  'supersedes',
  'supersededBy',
  'conflict',
  'about',
  'relations',
  'embeddingModel',
  'redactions',
] as const;

/**
 * The memory's properties as returned by the queries below, named one by
 * one: `m {.*, embedding: null}` made Neo4j read the embedding (the bulk of
 * a node: 384 floats) of every row only to drop it.
 */
export const MEMORY_PROJECTION = `m {${MEMORY_PROPERTIES.map((k) => `.${k}`).join(', ')}}`;
