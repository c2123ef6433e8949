// How a restore writes memories back: one owner at a time, in batches
// through the store's atomic write, sources before what derives from them.
import type { MemoryStore, WriteBatch } from '../ports/memory-store.ts';
import { auditEvent, type Caller } from '../services/deps.ts';
import type { BackedUpMemory } from './backup-format.ts';

/**
 * Writes one owner's memories at a time, in batches. A memory whose source
 * is not written yet waits for the owner's end; one whose source never
 * comes is dropped (the deletion reached it: it was read from a live store
 * after its source went). Supersession marks are re-made by the store's
 * write when the newer version arrives, so a version whose newer one is
 * missing stays ended (validTo) but not pointed at a memory that is not
 * there, as a deletion of the newer version leaves it.
 */
export class OwnerWriter {
  written = 0;
  #owner = '';
  #done = new Set<string>();
  /** Not superseded and not ended in the backup: may be superseded by a later version. */
  #current = new Set<string>();
  /** Newer version id -> the versions it superseded, waiting for it. */
  #marks = new Map<string, { id: string; at: string }[]>();
  #waiting: BackedUpMemory[] = [];
  #batch: BackedUpMemory[] = [];

  constructor(
    private readonly store: MemoryStore,
    private readonly caller: Caller,
    private readonly batchSize: number,
    private readonly now: () => string,
    private readonly details: Record<string, unknown>,
  ) {}

  start(ownerId: string): void {
    this.#owner = ownerId;
    this.#done.clear();
    this.#current.clear();
    this.#marks.clear();
    this.#waiting = [];
    this.#batch = [];
  }

  async add(m: BackedUpMemory): Promise<void> {
    if (m.memory.derivedFrom.some((id) => !this.#done.has(id))) {
      this.#waiting.push(m);
      return;
    }
    this.#take(m);
    if (this.#batch.length >= this.batchSize) await this.#flush();
  }

  /** Write what waited for its sources (as long as any can go), then the rest; returns how many were dropped. */
  async finish(): Promise<number> {
    for (let progress = true; progress && this.#waiting.length > 0;) {
      progress = false;
      const still: BackedUpMemory[] = [];
      for (const m of this.#waiting) {
        if (m.memory.derivedFrom.every((id) => this.#done.has(id))) {
          this.#take(m);
          progress = true;
        } else still.push(m);
      }
      this.#waiting = still;
    }
    await this.#flush();
    return this.#waiting.length;
  }

  #take(m: BackedUpMemory): void {
    this.#done.add(m.memory.id);
    this.#batch.push(m);
  }

  async #flush(): Promise<void> {
    if (this.#batch.length === 0) return;
    const ownerId = this.#owner;
    const supersede: WriteBatch['supersede'] = [];
    const memories = this.#batch.map(({ memory: m, embedding }) => {
      if (m.supersededBy !== null) {
        const mark = { id: m.id, at: m.validTo ?? m.createdAt };
        // The newer version is written already (or in this batch: marks apply after inserts).
        if (this.#done.has(m.supersededBy))
          supersede.push({ ownerId, id: m.id, by: m.supersededBy, at: mark.at });
        else this.#marks.set(m.supersededBy, [...(this.#marks.get(m.supersededBy) ?? []), mark]);
      } else if (m.validTo === null) this.#current.add(m.id);
      for (const older of this.#marks.get(m.id) ?? [])
        supersede.push({ ownerId, id: older.id, by: m.id, at: older.at });
      this.#marks.delete(m.id);
      // A live store read mid-write may hold the newer version but not the mark on the older.
      if (m.supersedes !== null && this.#current.delete(m.supersedes))
        supersede.push({ ownerId, id: m.supersedes, by: m.id, at: m.createdAt });
      return { memory: { ...m, supersededBy: null }, embedding };
    });
    const reflected = this.#batch
      .filter((b) => b.memory.kind === 'episode' && b.reflected)
      .map((b) => b.memory.id);
    const unreflected = this.#batch.some((b) => b.memory.kind === 'episode' && !b.reflected);
    const at = this.now();
    await this.store.write({
      memories,
      supersede,
      sessionMessages: [],
      audit: [
        auditEvent(this.caller, 'restore', at, ownerId, {
          memoryIds: memories.map((w) => w.memory.id),
          contentHashes: memories.map((w) => w.memory.contentHash),
          details: this.details,
        }),
      ],
      ...(reflected.length > 0 && { reflected: [{ ownerId, ids: reflected, at }] }),
      // Episodes reflection had not read yet: its next pass visits this owner.
      ...(unreflected && { due: [{ schedule: 'reflect', ownerId }] }),
    });
    this.written += memories.length;
    this.#batch = [];
  }
}
