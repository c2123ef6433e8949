// Which owners get an in-memory vector index, and keeping each in step with
// SQLite. The table's exact scan costs about 3 µs a vector (30 ms at 10k),
// fine for small owners; owners with at least `minVectors` vectors are
// searched through a FlatVectorIndex instead, built from the vector table
// on first use, and the least recently searched indexes are let go once
// they hold more than `maxBytes` together. SQLite stays the source of
// truth: every transaction that changes an owner's vectors raises the
// owner's epoch (owner_vectors), the process that wrote applies its own
// change to its index after the commit, and a search that finds another
// epoch than its index's (another process wrote, or a change was rolled
// back mid-way) rebuilds the index first.
import type { Db } from '../open-database.ts';
import type { Statements } from '../queries.ts';
import { VECTOR_TABLE } from '../vector-table.ts';
import { FlatVectorIndex, type IndexEntry } from './flat-index.ts';

/**
 * Owners with at least this many vectors are searched through the index:
 * below it the exact scan takes at most ~6 ms, and an index would cost a
 * build (~35 µs a vector) and 1.6 KB a vector of memory.
 */
export const DEFAULT_MIN_VECTORS = 2_000;

/**
 * Bytes of index arrays held at once before the least recently searched
 * owners' indexes are let go (a 100k owner takes about 150 MiB).
 */
export const DEFAULT_MAX_INDEX_BYTES = 512 * 1024 * 1024;

const EPOCH_KEY = 'vector_epoch';
const SEEDED_KEY = 'owner_vectors_seeded';

/** One transaction's vector changes for one owner: removals apply first. */
export interface VectorChange {
  /** Vectors written (new, or replacing the same id's). */
  added: IndexEntry[];
  /** Ids whose vector row was deleted (and only those: a no-op delete is not one). */
  removed: string[];
}

/** A transaction's changes by owner; `change(owner)` creates the owner's entry. */
export class VectorChanges {
  readonly byOwner = new Map<string, VectorChange>();
  change(ownerId: string): VectorChange {
    let c = this.byOwner.get(ownerId);
    if (!c) this.byOwner.set(ownerId, (c = { added: [], removed: [] }));
    return c;
  }
}

interface Held {
  epoch: number;
  index: FlatVectorIndex;
}

export class OwnerVectorIndexes {
  private readonly held = new Map<string, Held>();
  /** SQLite's data_version when the held indexes were last checked against the epochs. */
  private checkedVersion = -1;

  constructor(
    private readonly db: Db,
    private readonly st: Statements,
    private readonly dimensions: number,
    readonly minVectors: number = DEFAULT_MIN_VECTORS,
    readonly maxBytes: number = DEFAULT_MAX_INDEX_BYTES,
  ) {}

  /**
   * Fill owner_vectors from the vector table once: stores made before it
   * existed, and new stores (a no-op there). Runs at open, after the vector
   * table is created.
   */
  static seed(db: Db): void {
    db.transaction(() => {
      const done = db.prepare('SELECT 1 FROM meta WHERE key = ?').get(SEEDED_KEY);
      if (done) return;
      db.prepare(
        `INSERT INTO owner_vectors (owner_id, vectors, epoch)
           SELECT owner_id, count(*), 0 FROM ${VECTOR_TABLE} GROUP BY owner_id`,
      ).run();
      db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, '0')").run(EPOCH_KEY);
      db.prepare("INSERT INTO meta (key, value) VALUES (?, '1')").run(SEEDED_KEY);
    }).immediate();
  }

  /**
   * Inside the transaction that made `changes`: count them and raise each
   * owner's epoch. Returns what to run once it has committed (apply the
   * changes to the indexes held), never before: a rollback must not reach
   * an index.
   */
  record(changes: VectorChanges): () => void {
    if (changes.byOwner.size === 0) return () => {};
    const epoch = Number(
      this.st
        .sql('UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ? RETURNING value')
        .pluck()
        .get(EPOCH_KEY),
    );
    const before = this.st.sql('SELECT epoch FROM owner_vectors WHERE owner_id = ?').pluck();
    const upsert = this.st.sql(
      `INSERT INTO owner_vectors (owner_id, vectors, epoch) VALUES (@ownerId, max(@delta, 0), @epoch)
       ON CONFLICT (owner_id) DO UPDATE SET vectors = max(vectors + @delta, 0), epoch = @epoch`,
    );
    const steps: [string, number | undefined, VectorChange][] = [];
    for (const [ownerId, c] of changes.byOwner) {
      const previous = before.get(ownerId) as number | undefined;
      const replaced = new Set(c.removed);
      const delta = c.added.filter((e) => !replaced.has(e.id)).length - c.removed.length;
      upsert.run({ ownerId, delta, epoch });
      steps.push([ownerId, previous, c]);
    }
    return () => {
      for (const [ownerId, previous, c] of steps) {
        const held = this.held.get(ownerId);
        if (!held) continue;
        // Another process changed this owner in between: rebuild on next use.
        if (held.epoch !== previous) {
          this.drop(ownerId);
          continue;
        }
        for (const id of c.removed) held.index.remove(id);
        for (const e of c.added) held.index.add(e);
        held.epoch = epoch;
      }
    };
  }

  /**
   * The owner's `k` nearest live vectors through its index, or null when
   * the owner is below the threshold (the caller asks sqlite-vec).
   */
  search(
    ownerId: string,
    query: Float32Array,
    k: number,
    nowMs: number,
  ): { id: string; score: number }[] | null {
    this.dropStale();
    const index = this.indexOf(ownerId);
    return index ? index.search(query, k, nowMs) : null;
  }

  /** The owner's index, built or rebuilt if stale; null below the threshold. */
  indexOf(ownerId: string): FlatVectorIndex | null {
    const row = this.st
      .sql('SELECT vectors, epoch FROM owner_vectors WHERE owner_id = ?')
      .get(ownerId) as { vectors: number; epoch: number } | undefined;
    if (!row || row.vectors < this.minVectors) {
      this.drop(ownerId);
      return null;
    }
    const held = this.held.get(ownerId);
    if (held && held.epoch === row.epoch) {
      // Most recently used last: Map keeps insertion order.
      this.held.delete(ownerId);
      this.held.set(ownerId, held);
      return held.index;
    }
    const built = this.build(ownerId);
    this.evictBeyondBudget(ownerId);
    return built.index;
  }

  /** Whether an index held in memory still has this id (for trace probes). */
  holds(ownerId: string, id: string): boolean {
    this.dropStale();
    return this.held.get(ownerId)?.index.has(id) ?? false;
  }

  /**
   * Wipe the indexes another connection has changed the vectors of since
   * they were built, so a vector deleted by another process does not stay
   * in this one's memory until its owner is searched again. One pragma
   * read when nothing else has written.
   */
  dropStale(): void {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version === this.checkedVersion) return;
    this.checkedVersion = version;
    if (this.held.size === 0) return;
    const epochs = new Map(
      (
        this.st
          .sql(
            'SELECT owner_id, epoch FROM owner_vectors WHERE owner_id IN (SELECT value FROM json_each(?))',
          )
          .all(JSON.stringify([...this.held.keys()])) as { owner_id: string; epoch: number }[]
      ).map((r) => [r.owner_id, r.epoch]),
    );
    for (const [ownerId, held] of this.held)
      if (epochs.get(ownerId) !== held.epoch) this.drop(ownerId);
  }

  /** The index held for the owner, without building one (for tests). */
  heldIndex(ownerId: string): FlatVectorIndex | null {
    return this.held.get(ownerId)?.index ?? null;
  }

  /** Forget the owner: its index and, once it has no vectors, its row. */
  dropOwner(ownerId: string): void {
    this.drop(ownerId);
    this.st.sql('DELETE FROM owner_vectors WHERE owner_id = ? AND vectors = 0').run(ownerId);
  }

  /** Owners indexed in memory and the bytes their arrays take. */
  stats(): { owners: number; vectors: number; bytes: number } {
    let vectors = 0;
    let bytes = 0;
    for (const { index } of this.held.values()) {
      vectors += index.size;
      bytes += index.byteLength;
    }
    return { owners: this.held.size, vectors, bytes };
  }

  /** Let the least recently used indexes go until the rest fit; `keep` stays. */
  private evictBeyondBudget(keep: string): void {
    let bytes = this.stats().bytes;
    for (const [ownerId, { index }] of this.held) {
      if (bytes <= this.maxBytes) return;
      if (ownerId === keep) continue;
      bytes -= index.byteLength;
      this.drop(ownerId);
    }
  }

  /** Wipe the owner's index, if held, and let it go. */
  private drop(ownerId: string): void {
    this.held.get(ownerId)?.index.wipe();
    this.held.delete(ownerId);
  }

  private build(ownerId: string): Held {
    this.drop(ownerId);
    // One read transaction: the epoch and the vectors it stands for.
    const held = this.db.transaction((): Held => {
      const epoch = this.st
        .sql('SELECT epoch FROM owner_vectors WHERE owner_id = ?')
        .pluck()
        .get(ownerId) as number;
      const entries = readOwnerVectors(this.st, ownerId);
      return { epoch, index: FlatVectorIndex.build(this.dimensions, entries) };
    })();
    this.held.set(ownerId, held);
    return held;
  }
}

/** The owner's vectors with their validity window, copied into aligned arrays. */
function readOwnerVectors(st: Statements, ownerId: string): IndexEntry[] {
  const rows = st
    .sql(
      `SELECT memory_id, embedding, expires_ms, valid_from_ms FROM ${VECTOR_TABLE} WHERE owner_id = ?`,
    )
    .all(ownerId) as {
    memory_id: string;
    embedding: Buffer;
    expires_ms: number;
    valid_from_ms: number;
  }[];
  return rows.map((r) => ({
    id: r.memory_id,
    vector: new Float32Array(new Uint8Array(r.embedding).buffer),
    expiresMs: r.expires_ms,
    validFromMs: r.valid_from_ms,
  }));
}
