// Restore: a backup's memories back into a store, with their ids, origins,
// lineage, supersession, expiry and vectors as they were, through the
// store's atomic write (so every memory comes back whole: row, full text,
// vector, entities, edges) and audited as `restore`.
//
// Two modes. Into an empty store ('empty'): the store takes the backup's
// audit log (sealed again in order, which gives the same hashes, so the
// chain is the backup's own) and its API keys. Over a store that holds
// data ('replace', the operator's explicit choice): the store's memories
// are replaced by the backup's, while its audit log and keys stay, since
// the log is append-only and a revoked key must stay revoked.
//
// Forgetting is an obligation a backup must not undo. Every memory id that
// a deletion event records after the backup's snapshot (in the backup's own
// log, in the log of the store being replaced, or in another copy of the
// log given as `deletions`) is deleted again, with the same cascade and
// reason, right after its owner's memories are written. Ids are never
// reused, so a deletion can only ever name a memory that ought to be gone.
import type { AuditEvent } from '../domain/audit.ts';
import { verifyAuditChain, type AuditVerification } from '../domain/audit.ts';
import { KeepGraphError } from '../domain/errors.ts';
import type { MemoryStore } from '../ports/memory-store.ts';
import { auditEvent, type Caller, type EngineDeps } from '../services/deps.ts';
import { cascade } from '../services/cascade.ts';
import {
  addDeletion,
  continuesSnapshot,
  reapplyDeletions,
  storeAudit,
  type Deletions,
} from './restore-deletions.ts';
import type { BackupSource } from './backup-format.ts';
import { OwnerWriter } from './owner-writer.ts';

export type RestoreMode = 'empty' | 'replace';

export interface RestoreOptions {
  /** See the module header. 'empty' refuses a store that holds anything. */
  mode: RestoreMode;
  /** Another copy of the store's audit log, whose deletions are applied too (e.g. the log of a lost store's last backup). */
  deletions?: () => AsyncIterable<AuditEvent>;
  /** Memories per write (default 200). */
  batchSize?: number;
  /** Told after each owner, for progress. */
  onProgress?: (p: { owners: number; memories: number }) => void;
}

export interface RestoreReport {
  mode: RestoreMode;
  backup: { store: string; createdAt: string; snapshotSeq: number | null };
  owners: number;
  /** Memories written back (a deletion applied again may have taken some since: deletionsReapplied). */
  memories: number;
  /** Memories left out: a source they derive from is not in the backup (deleted while a live store was read). */
  droppedWithoutSources: number;
  apiKeys: number;
  /** Events of the backup's audit log sealed again into the store ('empty'). */
  auditEventsReplayed: number;
  /** Memories the store held before, removed ('replace'). */
  replacedMemories: number;
  /** The store's log continues the backup's (its event at the snapshot has the snapshot's hash). */
  sameHistory: boolean;
  /** Deletions logged after the snapshot, applied again to the restored memories. */
  deletionsReapplied: { events: number; memories: number };
  /** The audit chain, verified after the restore. */
  audit: AuditVerification;
}

/** A store holds nothing: no memory, no audit event, no API key. */
export async function isStoreEmpty(store: MemoryStore): Promise<boolean> {
  return (
    (await store.listOwners({ limit: 1 })).length === 0 &&
    (await store.listAudit({ limit: 1 })).length === 0 &&
    (await store.listApiKeys()).length === 0
  );
}

/**
 * Restore `source` into `deps.store` as `caller` (an operator). Everything
 * that can be checked is checked before the first write: the mode against
 * the store's contents, the vector size against the embedder's. Throws
 * `conflict` (details.reason `store_not_empty`) for a non-empty store in
 * 'empty' mode, `invalid_input` for vectors of another size.
 */
export async function restoreBackup(
  deps: EngineDeps,
  caller: Caller,
  source: BackupSource,
  opts: RestoreOptions,
): Promise<RestoreReport> {
  const { store } = deps;
  const h = source.header;
  const batchSize = opts.batchSize ?? 200;
  if (h.dimensions !== deps.embedder.dimensions)
    throw new KeepGraphError(
      'invalid_input',
      `the backup's vectors have ${h.dimensions} dimensions (model ${h.embeddingModel}); this store's model has ${deps.embedder.dimensions}: restore with the backup's model`,
      { backupModel: h.embeddingModel, backupDimensions: h.dimensions },
    );
  const empty = await isStoreEmpty(store);
  if (opts.mode === 'empty' && !empty)
    throw new KeepGraphError(
      'conflict',
      'the store is not empty (it holds memories, audit events or API keys): restore into an empty store, or replace its contents explicitly',
      { reason: 'store_not_empty' },
    );
  const mode: RestoreMode = empty ? 'empty' : 'replace';
  const report: RestoreReport = {
    mode,
    backup: { store: h.store, createdAt: h.createdAt, snapshotSeq: h.snapshot?.seq ?? null },
    owners: 0,
    memories: 0,
    droppedWithoutSources: 0,
    apiKeys: 0,
    auditEventsReplayed: 0,
    replacedMemories: 0,
    sameHistory: mode === 'empty' || (await continuesSnapshot(store, h.snapshot)),
    deletionsReapplied: { events: 0, memories: 0 },
    audit: { ok: false, checked: 0 },
  };

  // What was deleted after the snapshot: the backup's own log past it, the
  // store's log past it (all of it when the store has another history; ids
  // are unique, so an older deletion names nothing in the backup), and
  // another copy of the log if given.
  const deletions: Deletions = new Map();
  const events = new Set<number>();
  const snapshotSeq = h.snapshot?.seq ?? 0;
  for await (const e of source.auditEvents())
    if (e.seq > snapshotSeq && addDeletion(deletions, e)) events.add(e.seq);
  if (mode === 'replace')
    for await (const e of storeAudit(store, report.sameHistory ? snapshotSeq : 0))
      if (addDeletion(deletions, e)) events.add(e.seq);
  if (opts.deletions)
    for await (const e of opts.deletions()) if (addDeletion(deletions, e)) events.add(e.seq);

  if (mode === 'empty') {
    report.auditEventsReplayed = await replayAudit(store, source);
  } else {
    report.replacedMemories = await removeAllMemories(deps, caller);
  }

  const at = () => deps.clock.now().toISOString();
  const restored = restoreEvent(h);
  const applied = new Set<number>();
  const writer = new OwnerWriter(store, caller, batchSize, at, restored);
  const finishOwner = async (ownerId: string) => {
    const left = await writer.finish();
    report.droppedWithoutSources += left;
    report.owners++;
    const r = await reapplyDeletions(deps, caller, ownerId, deletions.get(ownerId));
    report.deletionsReapplied.memories += r.memories;
    for (const s of r.events) applied.add(s);
    opts.onProgress?.({ owners: report.owners, memories: report.memories });
  };
  let owner: string | null = null;
  for await (const m of source.memories()) {
    if (m.memory.ownerId !== owner) {
      if (owner !== null) await finishOwner(owner);
      owner = m.memory.ownerId;
      writer.start(owner);
    }
    await writer.add(m);
    report.memories = writer.written;
  }
  if (owner !== null) await finishOwner(owner);
  report.memories = writer.written;
  report.deletionsReapplied.events = applied.size;

  if (mode === 'empty') {
    for await (const key of source.apiKeys()) {
      await store.saveApiKey(
        key,
        auditEvent(caller, 'restore', at(), null, { details: { apiKey: key.id, ...restored } }),
      );
      report.apiKeys++;
    }
  }
  await store.appendAudit([
    auditEvent(caller, 'restore', at(), null, {
      details: {
        ...restored,
        mode,
        sameHistory: report.sameHistory,
        owners: report.owners,
        memories: report.memories,
        droppedWithoutSources: report.droppedWithoutSources,
        replacedMemories: report.replacedMemories,
        auditEventsReplayed: report.auditEventsReplayed,
        apiKeys: report.apiKeys,
        deletionsReapplied: report.deletionsReapplied,
      },
    }),
  ]);
  report.audit = verifyAuditChain(await collect(storeAudit(store, 0)));
  return report;
}

/**
 * The end of a restore that put a copy of a whole store in place (a SQLite
 * backup file): the copy holds the backup's memories, keys and audit log
 * already. Applies again the deletions another copy of the log records
 * (`deletions`), logs the restore and verifies the chain.
 */
export async function finishCopiedRestore(
  deps: EngineDeps,
  caller: Caller,
  header: BackupSource['header'],
  opts: Pick<RestoreOptions, 'deletions'> = {},
): Promise<RestoreReport> {
  const { store } = deps;
  const deletions: Deletions = new Map();
  if (opts.deletions) for await (const e of opts.deletions()) addDeletion(deletions, e);
  const counts = await store.counts();
  const restored = restoreEvent(header);
  const report: RestoreReport = {
    mode: 'empty',
    backup: restored.backup,
    owners: counts.owners,
    memories: counts.memories,
    droppedWithoutSources: 0,
    apiKeys: (await store.listApiKeys()).length,
    auditEventsReplayed: header.snapshot?.seq ?? 0,
    replacedMemories: 0,
    sameHistory: true,
    deletionsReapplied: { events: 0, memories: 0 },
    audit: { ok: false, checked: 0 },
  };
  const applied = new Set<number>();
  for (const [ownerId, deleted] of deletions) {
    const r = await reapplyDeletions(deps, caller, ownerId, deleted);
    report.deletionsReapplied.memories += r.memories;
    for (const s of r.events) applied.add(s);
  }
  report.deletionsReapplied.events = applied.size;
  await store.appendAudit([
    auditEvent(caller, 'restore', deps.clock.now().toISOString(), null, {
      details: {
        ...restored,
        mode: 'copy',
        owners: report.owners,
        memories: report.memories,
        deletionsReapplied: report.deletionsReapplied,
      },
    }),
  ]);
  report.audit = verifyAuditChain(await collect(storeAudit(store, 0)));
  return report;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** What every restore event says of the backup it came from. */
function restoreEvent(h: BackupSource['header']): {
  backup: { store: string; createdAt: string; snapshotSeq: number | null };
} {
  return {
    backup: { store: h.store, createdAt: h.createdAt, snapshotSeq: h.snapshot?.seq ?? null },
  };
}

/**
 * Seal the backup's audit log into the empty store's, in order. Sealing is
 * deterministic, so each event gets its old hash back; the last one is
 * checked against the backup's.
 */
async function replayAudit(store: MemoryStore, source: BackupSource): Promise<number> {
  let batch: AuditEvent[] = [];
  let last: AuditEvent | null = null;
  let n = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await store.appendAudit(batch.map(({ seq: _s, prevHash: _p, hash: _h, ...input }) => input));
    n += batch.length;
    batch = [];
  };
  for await (const e of source.auditEvents()) {
    batch.push(e);
    last = e;
    if (batch.length >= 500) await flush();
  }
  await flush();
  if (last) {
    const [head] = await store.listAudit({ afterSeq: last.seq - 1, limit: 1 });
    if (head?.hash !== last.hash)
      throw new KeepGraphError(
        'internal',
        `the backup's audit log sealed again does not end in its own hash (event ${last.seq})`,
      );
  }
  return n;
}

/** Every memory of every owner, one cascade an owner (so nothing is left to re-derive). */
async function removeAllMemories(deps: EngineDeps, caller: Caller): Promise<number> {
  let removed = 0;
  for (;;) {
    const owners = await deps.store.listOwners({ limit: 100 });
    if (owners.length === 0) return removed;
    for (const ownerId of owners) {
      const ids = await deps.store.listIds(ownerId);
      if (ids.length === 0) continue;
      const r = await cascade(deps, caller, ownerId, ids, 'restore');
      removed += r.deletedMemoryIds.length;
    }
  }
}
