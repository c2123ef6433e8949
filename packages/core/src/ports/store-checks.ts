// Checks every MemoryStore makes on what it is handed, in one place: the
// engine validates callers' input, and stores re-check the invariants that
// protect their own data (an owner on everything, ids, vector sizes, relation
// types that are caller text) before they open a transaction.
import { KeepGraphError } from '../errors.ts';
import { RELATION_TYPE } from '../record.ts';
import type { WriteBatch } from './memory-store.ts';

/** Throw owner_required for a blank owner id (invariant 1). */
export function requireOwner(ownerId: unknown): asserts ownerId is string {
  if (typeof ownerId !== 'string' || ownerId.trim() === '') {
    throw new KeepGraphError('owner_required', 'owner id must not be blank');
  }
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
}
