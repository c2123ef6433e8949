// The logical backup: what a backup of a store holds (its memories with
// their vectors and reflection state, its API keys as stored, its audit
// log), and the JSONL file that carries it. The first line is a header
// naming the format, its version, the store and the time; the last line
// counts the records and holds the SHA-256 of every line before it, so a
// truncated, edited or corrupt file is refused before anything is written.
//
//   {"type":"header","format":"keepgraph-backup","version":1,"store":"neo4j",...}
//   {"type":"memory","memory":{...every field...},"embedding":"<base64 f32 LE>","reflected":true}
//   {"type":"apiKey","key":{...the stored record: hash, never the key...}}
//   {"type":"audit","event":{...sealed: seq, prevHash, hash...}}
//   {"type":"end","memories":N,"owners":N,"apiKeys":N,"auditEvents":N,"sha256":"..."}
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AUDIT_TYPES, contentHash, type AuditEvent } from '../domain/audit.ts';
import { KeepGraphError } from '../domain/errors.ts';
import type { ApiKeyRecord } from '../ports/memory-store.ts';
import {
  AUTHORITIES,
  MEMORY_KINDS,
  ROLES,
  SENSITIVITIES,
  isoTime,
  type Memory,
} from '../domain/record.ts';

/** The `format` of a backup's header: what a file must say to be read as one. */
export const BACKUP_FORMAT = 'keepgraph-backup';
/** The version this code writes and reads. A file of another version is refused. */
export const BACKUP_VERSION = 1;

/** What a backup says of itself. */
export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  /** The kind of store it was taken from: 'sqlite', 'neo4j'. */
  store: string;
  /** When the backup began (ISO 8601, the engine's clock). */
  createdAt: string;
  /**
   * The audit event the backed-up memories reflect: every deletion up to it
   * is in them; one after it may not be, and a restore applies it again.
   * Null when the log was empty.
   */
  snapshot: { seq: number; hash: string } | null;
  /** Size of the vectors carried (the store's embedding model's). */
  dimensions: number;
  /** The model the source store embedded with when the backup was taken. */
  embeddingModel: string;
  /**
   * The installation's audit secret (the keyed hashes in the audit log are
   * made with it): a backup is as sensitive as the data directory. Null
   * when the backup was taken without it.
   */
  auditSecret: string | null;
}

/** The last line: how many records of each type came before it, and their SHA-256. */
export interface BackupEnd {
  memories: number;
  owners: number;
  apiKeys: number;
  auditEvents: number;
  /** Hex SHA-256 of every line before this one, each with its newline. */
  sha256: string;
}

/** One memory as backed up: the stored record, its vector and whether reflection has read it. */
export interface BackedUpMemory {
  memory: Memory;
  embedding: Float32Array | null;
  /** For an episode: reflection has consumed it (false: a pass should still read it). */
  reflected: boolean;
}

/**
 * A backup to restore from, or a store to back up: the same shape. Each
 * method starts a fresh pass over its records.
 */
export interface BackupSource {
  header: BackupHeader;
  /**
   * Every memory, owner after owner (each owner's together), oldest first
   * within an owner, so sources come before what was derived from them.
   */
  memories(): AsyncIterable<BackedUpMemory>;
  apiKeys(): AsyncIterable<ApiKeyRecord>;
  /** The audit log in sequence order from its first event. */
  auditEvents(): AsyncIterable<AuditEvent>;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits');
const isoOrNull = isoTime.nullable();
const str = z.string();
const strOrNull = z.string().nullable();

// Structural checks only: a backup holds what the store held, which passed
// the gate when it was written; the policy's content rules are not re-run
// (a value they would now trim or refuse must still come back as it was).
const OriginRecordSchema = z.looseObject({ observedAt: str, writtenBy: str });
const EntityRefRecordSchema = z.strictObject({ name: str, type: str });
const RelationRecordSchema = z.strictObject({
  subject: EntityRefRecordSchema,
  type: str,
  object: EntityRefRecordSchema,
  reason: str.optional(),
});

/** A stored memory, every field of `Memory`, nothing else. */
export const StoredMemorySchema = z
  .strictObject({
    id: str.min(1).max(256),
    ownerId: str.min(1),
    kind: z.enum(MEMORY_KINDS),
    text: str,
    key: strOrNull,
    origin: OriginRecordSchema,
    sourceOrigins: z.array(OriginRecordSchema),
    authority: z.enum(AUTHORITIES),
    createdAt: isoTime,
    validFrom: isoTime,
    validTo: isoOrNull,
    expiresAt: isoTime,
    sensitivity: z.enum(SENSITIVITIES),
    tags: z.array(str),
    confidence: z.number().min(0).max(1),
    contentHash: hex64,
    derivedFrom: z.array(str.min(1)),
    supersedes: strOrNull,
    supersededBy: strOrNull,
    conflict: z.boolean(),
    about: z.array(EntityRefRecordSchema),
    relations: z.array(RelationRecordSchema),
    embeddingModel: strOrNull,
    redactions: z.array(str),
  })
  // The text is what its hash says: a line edited or damaged in between is caught here.
  .refine((m) => contentHash(m.text) === m.contentHash, {
    message: 'contentHash does not match the text',
    path: ['contentHash'],
  });

const ApiKeyRecordSchema = z.strictObject({
  id: str.min(1),
  name: str,
  role: z.enum(ROLES),
  owners: z.union([z.literal('all'), z.array(str)]),
  keyHash: hex64,
  createdAt: isoTime,
  createdBy: str,
  expiresAt: isoOrNull,
  revokedAt: isoOrNull,
});

const AuditEventRecordSchema = z.strictObject({
  seq: z.number().int().min(1),
  type: z.enum(AUDIT_TYPES),
  at: str,
  ownerId: strOrNull,
  actor: str,
  role: str,
  memoryIds: z.array(str),
  contentHashes: z.array(str),
  reason: strOrNull,
  details: z.record(z.string(), z.unknown()),
  prevHash: hex64,
  hash: hex64,
});

const HeaderLineSchema = z.strictObject({
  type: z.literal('header'),
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  store: str.min(1),
  createdAt: isoTime,
  snapshot: z.strictObject({ seq: z.number().int().min(1), hash: hex64 }).nullable(),
  dimensions: z.number().int().min(1).max(8192),
  embeddingModel: str.min(1),
  auditSecret: str.min(32).nullable(),
});

const EndLineSchema = z.strictObject({
  type: z.literal('end'),
  memories: z.number().int().min(0),
  owners: z.number().int().min(0),
  apiKeys: z.number().int().min(0),
  auditEvents: z.number().int().min(0),
  sha256: hex64,
});

const MemoryLineSchema = z.strictObject({
  type: z.literal('memory'),
  memory: z.unknown(),
  embedding: z.string().nullable(),
  reflected: z.boolean(),
});
const ApiKeyLineSchema = z.strictObject({ type: z.literal('apiKey'), key: ApiKeyRecordSchema });
const AuditLineSchema = z.strictObject({ type: z.literal('audit'), event: AuditEventRecordSchema });

/** One line of a backup file, read and checked. */
export type BackupLine =
  | { type: 'header'; header: BackupHeader }
  | { type: 'memory'; memory: BackedUpMemory }
  | { type: 'apiKey'; key: ApiKeyRecord }
  | { type: 'audit'; event: AuditEvent }
  | { type: 'end'; end: BackupEnd };

/** A vector as a backup line carries it: its float32 bytes, little-endian, in base64. */
export function encodeVector(v: Float32Array): string {
  const bytes = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) bytes.writeFloatLE(v[i]!, i * 4);
  return bytes.toString('base64');
}

/** The inverse of encodeVector; `invalid_input` when it is not `dimensions` floats. */
export function decodeVector(text: string, dimensions: number): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== dimensions * 4 || bytes.toString('base64') !== text)
    throw new KeepGraphError(
      'invalid_input',
      `embedding is not ${dimensions} float32 values in base64`,
    );
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = bytes.readFloatLE(i * 4);
  return v;
}

function bad(lineNo: number, message: string): KeepGraphError {
  return new KeepGraphError('invalid_input', `backup line ${lineNo}: ${message}`, {
    line: lineNo,
  });
}

function check<S extends z.ZodType>(schema: S, value: unknown, lineNo: number): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw bad(lineNo, `${issue.path.join('.') || '(line)'}: ${issue.message}`);
}

/**
 * Read one line of a backup file (`dimensions`: the header's, for the
 * vectors). Throws `invalid_input` naming the line for anything that is not
 * a well-formed record of this version. Memories come back as written (the
 * checks transform nothing).
 */
export function parseBackupLine(text: string, lineNo: number, dimensions: number): BackupLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw bad(lineNo, `not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const type = (value as { type?: unknown } | null)?.type;
  switch (type) {
    case 'header': {
      const h = value as Record<string, unknown>;
      if (h.format !== BACKUP_FORMAT) throw bad(lineNo, `not a ${BACKUP_FORMAT} file`);
      if (h.version !== BACKUP_VERSION)
        throw bad(
          lineNo,
          `backup version ${JSON.stringify(h.version)} is not supported (this KeepGraph reads version ${BACKUP_VERSION})`,
        );
      const { type: _t, ...header } = check(HeaderLineSchema, value, lineNo);
      return { type: 'header', header };
    }
    case 'memory': {
      const line = check(MemoryLineSchema, value, lineNo);
      check(StoredMemorySchema, line.memory, lineNo);
      let embedding: Float32Array | null = null;
      try {
        embedding = line.embedding === null ? null : decodeVector(line.embedding, dimensions);
      } catch (e) {
        throw bad(lineNo, e instanceof Error ? e.message : String(e));
      }
      // The record as written, not the parse's output: nothing is normalised on the way.
      const memory = line.memory as Memory;
      return { type: 'memory', memory: { memory, embedding, reflected: line.reflected } };
    }
    case 'apiKey':
      check(ApiKeyLineSchema, value, lineNo);
      return { type: 'apiKey', key: (value as { key: ApiKeyRecord }).key };
    case 'audit':
      check(AuditLineSchema, value, lineNo);
      return { type: 'audit', event: (value as { event: AuditEvent }).event };
    case 'end': {
      const { type: _t, ...end } = check(EndLineSchema, value, lineNo);
      return { type: 'end', end };
    }
    default:
      throw bad(lineNo, `unknown record type ${JSON.stringify(type)}`);
  }
}

/** The line for each record, without its newline. */
export const backupLine = {
  header: (h: BackupHeader): string => JSON.stringify({ type: 'header', ...h }),
  memory: (m: BackedUpMemory): string =>
    JSON.stringify({
      type: 'memory',
      memory: m.memory,
      embedding: m.embedding ? encodeVector(m.embedding) : null,
      reflected: m.reflected,
    }),
  apiKey: (key: ApiKeyRecord): string => JSON.stringify({ type: 'apiKey', key }),
  audit: (event: AuditEvent): string => JSON.stringify({ type: 'audit', event }),
  end: (e: BackupEnd): string => JSON.stringify({ type: 'end', ...e }),
};

/** The running SHA-256 of a file's lines, as the end line records it. */
export class BackupDigest {
  readonly #hash = createHash('sha256');
  add(line: string): void {
    this.#hash.update(line);
    this.#hash.update('\n');
  }
  hex(): string {
    return this.#hash.digest('hex');
  }
}
