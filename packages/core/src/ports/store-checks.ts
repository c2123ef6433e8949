// Checks every MemoryStore makes on what it is handed, in one place: the
// engine validates callers' input, and stores re-check the invariants that
// protect their own data (an owner on everything, ids, vector sizes, relation
// types that are caller text) before they open a transaction.
import { KeepGraphError } from '../domain/errors.ts';
import { RELATION_TYPE } from '../domain/record.ts';
import { JOB_NAMES, type Job } from './job-queue.ts';
import type { EmbeddingUpdate, OutboxEntry, WriteBatch } from './memory-store.ts';

/** Throw owner_required for a blank owner id (invariant 1). */
export function requireOwner(ownerId: unknown): asserts ownerId is string {
  if (typeof ownerId !== 'string' || ownerId.trim() === '') {
    throw new KeepGraphError('owner_required', 'owner id must not be blank');
  }
}

/** Throw invalid_input for a blank or non-string name (a schedule's, say). */
export function requireName(value: unknown, field = 'name'): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new KeepGraphError('invalid_input', `${field} must not be blank`);
}

/** Cheap checks first, so a bad batch fails before a store takes a lock. */
export function checkWriteBatch(batch: WriteBatch, dimensions: number): void {
  for (const { memory: m, embedding } of batch.memories) {
    requireOwner(m.ownerId);
    if (typeof m.id !== 'string' || m.id.trim() === '') {
      throw new KeepGraphError('invalid_input', 'memory id must not be blank');
    }
    if (embedding && embedding.length !== dimensions) {
      throw new KeepGraphError(
        'invalid_input',
        `embedding has ${embedding.length} dimensions, store has ${dimensions}`,
        {
          id: m.id,
        },
      );
    }
    // A relation type is caller text: re-checked here even though stores
    // only ever pass it as a parameter value.
    for (const r of m.relations) {
      if (!RELATION_TYPE.safeParse(r.type).success) {
        throw new KeepGraphError('invalid_input', 'relation type must be UPPER_SNAKE_CASE', {
          id: m.id,
        });
      }
    }
  }
  for (const s of batch.supersede) requireOwner(s.ownerId);
  for (const msg of batch.sessionMessages) requireOwner(msg.ownerId);
  for (const r of batch.reflected ?? []) requireOwner(r.ownerId);
  for (const j of batch.jobs ?? []) {
    // The id is the outbox's key and the queue's idempotency key.
    if (typeof j.id !== 'string' || j.id.trim() === '') {
      throw new KeepGraphError('invalid_input', 'job id must not be blank');
    }
    if (!(JOB_NAMES as readonly string[]).includes(j.name)) {
      throw new KeepGraphError('invalid_input', 'unknown job name', { id: j.id });
    }
    // Not requireOwner's code: a job's owner may be '*' (all owners), and
    // blank is a malformed job rather than an unowned write.
    if (typeof j.ownerId !== 'string' || j.ownerId.trim() === '') {
      throw new KeepGraphError('invalid_input', 'job owner must not be blank', { id: j.id });
    }
  }
  for (const d of [...(batch.due ?? []), ...(batch.passed ?? [])]) {
    requireName(d.schedule, 'schedule');
    requireOwner(d.ownerId);
  }
  for (const p of batch.passed ?? []) requireName(p.token, 'pass token');
}

/**
 * When a batch's jobs enter the outbox: the instant of the write itself (its
 * first audit event, else its first memory's createdAt), so the entry is
 * dated by the engine's clock like the rest of the batch; the wall clock
 * only for a batch that carries no time at all.
 */
export function outboxRecordedAt(batch: WriteBatch, now: () => Date = () => new Date()): string {
  return batch.audit[0]?.at ?? batch.memories[0]?.memory.createdAt ?? now().toISOString();
}

/** Checks of replaceEmbeddings' input: ids and models named, vectors of the store's size. */
export function checkEmbeddingUpdates(
  updates: readonly EmbeddingUpdate[],
  dimensions: number,
): void {
  for (const u of updates) {
    if (typeof u.id !== 'string' || u.id.trim() === '') {
      throw new KeepGraphError('invalid_input', 'memory id must not be blank');
    }
    if (typeof u.model !== 'string' || u.model.trim() === '') {
      throw new KeepGraphError('invalid_input', 'embedding model must not be blank', { id: u.id });
    }
    if (!(u.embedding instanceof Float32Array) || u.embedding.length !== dimensions) {
      throw new KeepGraphError(
        'invalid_input',
        `embedding has ${u.embedding?.length ?? 0} dimensions, store has ${dimensions}`,
        { id: u.id },
      );
    }
  }
}

/** A read's `limit`: a non-negative integer, or `invalid_input`. */
export function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new KeepGraphError('invalid_input', 'limit must be a non-negative integer', { limit });
  }
}

/**
 * Compare what a keyed write expected with what the store found inside its
 * transaction (see `WriteBatch.keys`); throws `conflict` with reason
 * `key_changed` on any difference. Order does not matter.
 */
export function checkKeyExpectation(expected: readonly string[], found: readonly string[]): void {
  const want = new Set(expected);
  if (want.size === found.length && found.every((id) => want.has(id))) return;
  throw new KeepGraphError('conflict', 'the key changed while this write was prepared', {
    reason: 'key_changed',
  });
}

/** A query vector of the store's dimension, or `invalid_input`. */
export function checkQueryVector(vector: Float32Array, dimensions: number): void {
  if (vector.length !== dimensions)
    throw new KeepGraphError(
      'invalid_input',
      `query vector has ${vector.length} dimensions, store has ${dimensions}`,
    );
}

/** An outbox row as both stores keep it (payload as JSON text), as the port returns it. */
export function outboxEntry(row: {
  id: string;
  name: string;
  ownerId: string;
  payloadJson: string;
  recordedAt: string;
}): OutboxEntry {
  return {
    job: {
      name: row.name as Job['name'],
      id: row.id,
      ownerId: row.ownerId,
      payload: JSON.parse(row.payloadJson) as Job['payload'],
    },
    recordedAt: row.recordedAt,
  };
}
