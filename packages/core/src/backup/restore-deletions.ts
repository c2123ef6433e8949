// The deletions a restore must apply again: every memory id that a deletion
// event records after the backup's snapshot (in any copy of the log) is
// deleted again, with the same cascade and reason, once its owner's
// memories are written (restore.ts's header says why).
import type { AuditEvent, AuditType } from '../domain/audit.ts';
import { isKeepGraphError } from '../domain/errors.ts';
import { DELETION_REASONS, type DeletionReason, type MemoryStore } from '../ports/memory-store.ts';
import type { Caller, EngineDeps } from '../services/deps.ts';
import { cascade } from '../services/cascade.ts';

/** Audit types whose events delete the memories they name. */
const DELETION_TYPES: ReadonlySet<AuditType> = new Set([
  'delete',
  'expire',
  'evict',
  'revoke_source',
  'forget_owner',
]);

/** Deletions to apply again, by owner: memory id -> the reason and the event that deleted it. */
export type Deletions = Map<string, Map<string, { reason: DeletionReason; seq: number }>>;

export function addDeletion(into: Deletions, e: AuditEvent): boolean {
  if (!DELETION_TYPES.has(e.type) || e.ownerId === null || e.memoryIds.length === 0) return false;
  const reason = (DELETION_REASONS as readonly string[]).includes(e.reason ?? '')
    ? (e.reason as DeletionReason)
    : 'forget';
  let owner = into.get(e.ownerId);
  if (!owner) into.set(e.ownerId, (owner = new Map()));
  for (const id of e.memoryIds) if (!owner.has(id)) owner.set(id, { reason, seq: e.seq });
  return true;
}

export async function* storeAudit(
  store: MemoryStore,
  afterSeq: number,
): AsyncGenerator<AuditEvent> {
  for (;;) {
    const events = await store.listAudit({ afterSeq, limit: 1000 });
    if (events.length === 0) return;
    yield* events;
    afterSeq = events[events.length - 1]!.seq;
  }
}

/** Does the log (read through `eventAt`) hold the backup's snapshot event? */
export async function continuesSnapshot(
  store: MemoryStore,
  snapshot: { seq: number; hash: string } | null,
): Promise<boolean> {
  if (snapshot === null) return true;
  const [e] = await store.listAudit({ afterSeq: snapshot.seq - 1, limit: 1 });
  return e?.seq === snapshot.seq && e.hash === snapshot.hash;
}

/** Delete again what was deleted after the snapshot, by reason, with the usual cascade. */
export async function reapplyDeletions(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  deleted: Map<string, { reason: DeletionReason; seq: number }> | undefined,
): Promise<{ memories: number; events: number[] }> {
  if (!deleted) return { memories: 0, events: [] };
  const held = new Set<string>();
  const ids = [...deleted.keys()];
  for (let i = 0; i < ids.length; i += 1000)
    for (const m of await deps.store.getByIds(ownerId, ids.slice(i, i + 1000))) held.add(m.id);
  const byReason = new Map<DeletionReason, string[]>();
  const events = new Set<number>();
  for (const id of held) {
    const d = deleted.get(id)!;
    byReason.set(d.reason, [...(byReason.get(d.reason) ?? []), id]);
    events.add(d.seq);
  }
  let memories = 0;
  for (const [reason, roots] of byReason) {
    const seqs = [...new Set(roots.map((id) => deleted.get(id)!.seq))].sort((a, b) => a - b);
    try {
      const r = await cascade(deps, caller, ownerId, roots, reason, { reappliedFrom: seqs });
      memories += r.deletedMemoryIds.length;
    } catch (e) {
      // An earlier reason's cascade took them all (they derived from its roots).
      if (!(isKeepGraphError(e) && e.code === 'not_found')) throw e;
    }
  }
  return { memories, events: [...events] };
}
