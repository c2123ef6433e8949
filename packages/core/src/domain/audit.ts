// The audit log: append-only and hash-chained (invariant 11). Each event's
// hash covers its predecessor's hash and its own canonical form, so any edit,
// insertion or gap breaks verification. Events carry ids and content hashes,
// never the content of what was written, refused or deleted.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';

export const AUDIT_TYPES = [
  'write',
  'refuse',
  'delete',
  'expire',
  'evict',
  'revoke_source',
  'forget_owner',
  'supersede',
  'read',
  'session_append',
  'reembed',
  'key_created',
  'key_revoked',
  'corrected',
  // A backup taken of the store, and a restore into it (what it wrote and removed).
  'backup',
  'restore',
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

/** What the engine asks the store to append. */
export interface AuditEventInput {
  type: AuditType;
  at: string;
  ownerId: string | null;
  actor: string;
  role: string;
  memoryIds: string[];
  contentHashes: string[];
  reason: string | null;
  /** Small, content-free facts (counts, codes, scheduled times). */
  details: Record<string, unknown>;
}

/** An event as the log holds it: the input, sealed onto the chain. */
export const AuditEventSchema = z.object({
  seq: z.number().int(),
  type: z.enum(AUDIT_TYPES),
  at: z.string(),
  ownerId: z.string().nullable(),
  actor: z.string(),
  role: z.string(),
  memoryIds: z.array(z.string()),
  contentHashes: z.array(z.string()),
  reason: z.string().nullable(),
  /** Small, content-free facts (counts, codes, scheduled times). */
  details: z.record(z.string(), z.unknown()),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEvent = z.output<typeof AuditEventSchema>;

export const GENESIS_HASH = '0'.repeat(64);

/** Canonical JSON: sorted keys, so the hash is independent of field order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The event exactly as a store reads it back. Stores seal this form (not the
 * caller's object) so the chain stays verifiable: `details` values that JSON
 * cannot carry (undefined, functions) would otherwise be hashed but not stored.
 */
export function storedAuditForm(e: AuditEventInput): AuditEventInput {
  return {
    type: e.type,
    at: e.at,
    ownerId: e.ownerId ?? null,
    actor: e.actor,
    role: e.role,
    memoryIds: [...e.memoryIds],
    contentHashes: [...e.contentHashes],
    reason: e.reason ?? null,
    details: JSON.parse(JSON.stringify(e.details ?? {})) as Record<string, unknown>,
  };
}

/** Seal one event onto the chain. Stores call this inside their write transaction. */
export function sealAuditEvent(input: AuditEventInput, seq: number, prevHash: string): AuditEvent {
  const body = { ...input, seq, prevHash };
  const hash = createHash('sha256').update(canonical(body)).digest('hex');
  return { ...body, hash };
}

export const AuditVerificationSchema = z.object({
  ok: z.boolean(),
  checked: z.number().int(),
  /** First broken sequence number and why, when not ok. */
  brokenAt: z.number().int().optional(),
  problem: z.enum(['hash_mismatch', 'broken_link', 'gap']).optional(),
});
export type AuditVerification = z.output<typeof AuditVerificationSchema>;

/** Recompute the chain from genesis; events must be the whole log in seq order. */
export function verifyAuditChain(events: readonly AuditEvent[]): AuditVerification {
  let prev = GENESIS_HASH;
  let expectedSeq = 1;
  for (const e of events) {
    if (e.seq !== expectedSeq)
      return { ok: false, checked: expectedSeq - 1, brokenAt: expectedSeq, problem: 'gap' };
    if (e.prevHash !== prev)
      return { ok: false, checked: expectedSeq - 1, brokenAt: e.seq, problem: 'broken_link' };
    const { seq, prevHash, hash, ...input } = e;
    const resealed = sealAuditEvent(input, seq, prevHash);
    if (resealed.hash !== hash)
      return { ok: false, checked: expectedSeq - 1, brokenAt: e.seq, problem: 'hash_mismatch' };
    prev = hash;
    expectedSeq++;
  }
  return { ok: true, checked: events.length };
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text.normalize('NFC')).digest('hex');
}

/**
 * A keyed hash (HMAC-SHA-256) of a value that can carry user text: a key, a
 * session id, a refused text. A plain sha256 of a short value is brute-forced
 * offline from an audit export; without the installation's secret it is not.
 * Same value, same secret, same hash: an operator can still ask "was this
 * session audited?" through the engine, which holds the secret.
 */
export type KeyedHash = (value: string) => string;

/** Bytes of a generated audit secret. */
export const AUDIT_SECRET_BYTES = 32;

export function newAuditSecret(): string {
  return randomBytes(AUDIT_SECRET_BYTES).toString('hex');
}

export function keyedHasher(secret: string): KeyedHash {
  if (secret.length < 32) throw new Error('an audit secret has at least 32 characters');
  return (value) =>
    `hmac-sha256:${createHmac('sha256', secret).update(value.normalize('NFC')).digest('hex')}`;
}
