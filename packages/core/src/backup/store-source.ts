// A store read as a backup source: every owner's memories (through the
// store port: owners, ids, records, vectors, reflection state), its API
// keys and its audit log. On a store that is being written meanwhile (a
// live Neo4j) this is not one snapshot: the header's `snapshot` is the
// audit head before any memory is read, so a restore applies again every
// deletion logged after it, whichever memories the pass saw.
import type { AuditEvent } from '../domain/audit.ts';
import type { ApiKeyRecord, MemoryStore } from '../ports/memory-store.ts';
import type { Memory } from '../domain/record.ts';
import type { BackedUpMemory, BackupHeader, BackupSource } from './backup-format.ts';

/** What the header says that the store cannot: the caller's clock, model and secret. */
export interface StoreSourceOptions {
  /** When the backup began (ISO). */
  createdAt: string;
  embeddingModel: string;
  dimensions: number;
  auditSecret: string | null;
  /** Records read per call (default 500). */
  pageSize?: number;
}

/** The last event of the audit log, found in O(log n) reads of one event each. */
export async function auditHead(
  store: Pick<MemoryStore, 'listAudit'>,
): Promise<{ seq: number; hash: string } | null> {
  const at = async (seq: number): Promise<AuditEvent | undefined> =>
    (await store.listAudit({ afterSeq: seq - 1, limit: 1 }))[0];
  if (!(await at(1))) return null;
  // Sequence numbers run 1..n without gaps: double until past the end, then halve.
  let lo = 1;
  let hi = 2;
  while (await at(hi)) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await at(mid)) lo = mid;
    else hi = mid;
  }
  const last = await at(lo);
  return last ? { seq: last.seq, hash: last.hash } : null;
}

function byAge(a: Pick<Memory, 'createdAt' | 'id'>, b: Pick<Memory, 'createdAt' | 'id'>): number {
  return a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

/**
 * One owner's memories, oldest first, with their vectors and reflection
 * state. The records are read twice (first for their order, then a page at
 * a time in it), so an owner of any size takes only its ids in memory. A
 * memory gone between the two reads is left out.
 */
async function* ownerMemories(
  store: MemoryStore,
  ownerId: string,
  now: string,
  page: number,
): AsyncGenerator<BackedUpMemory> {
  const ids = await store.listIds(ownerId);
  const order: Pick<Memory, 'id' | 'createdAt'>[] = [];
  for (let i = 0; i < ids.length; i += page)
    for (const m of await store.getByIds(ownerId, ids.slice(i, i + page)))
      order.push({ id: m.id, createdAt: m.createdAt });
  order.sort(byAge);
  // Reflection reads live unreflected episodes only: those are the ones a restore must leave unread.
  const backlog = await store.countUnreflected(ownerId, now);
  const unreflected = new Set(
    backlog === 0
      ? []
      : (await store.unreflectedEpisodes(ownerId, { now, limit: backlog + page })).map((m) => m.id),
  );
  for (let i = 0; i < order.length; i += page) {
    const chunk = order.slice(i, i + page).map((m) => m.id);
    const byId = new Map((await store.getByIds(ownerId, chunk)).map((m) => [m.id, m]));
    const vectors = new Map(
      (await store.getEmbeddings(ownerId, chunk)).map((v) => [v.id, v.embedding]),
    );
    for (const id of chunk) {
      const memory = byId.get(id);
      if (!memory) continue;
      yield { memory, embedding: vectors.get(id) ?? null, reflected: !unreflected.has(id) };
    }
  }
}

/** The whole store as a backup source. */
export async function storeBackupSource(
  store: MemoryStore,
  opts: StoreSourceOptions,
): Promise<BackupSource> {
  const page = opts.pageSize ?? 500;
  const header: BackupHeader = {
    format: 'keepgraph-backup',
    version: 1,
    store: store.kind,
    createdAt: opts.createdAt,
    snapshot: await auditHead(store),
    dimensions: opts.dimensions,
    embeddingModel: opts.embeddingModel,
    auditSecret: opts.auditSecret,
  };
  return {
    header,
    async *memories() {
      let after: string | undefined;
      for (;;) {
        const owners = await store.listOwners({
          ...(after !== undefined && { after }),
          limit: 100,
        });
        for (const ownerId of owners) yield* ownerMemories(store, ownerId, opts.createdAt, page);
        if (owners.length < 100) return;
        after = owners[owners.length - 1];
      }
    },
    async *apiKeys(): AsyncGenerator<ApiKeyRecord> {
      yield* await store.listApiKeys();
    },
    async *auditEvents() {
      let afterSeq = 0;
      for (;;) {
        const events = await store.listAudit({ afterSeq, limit: 1000 });
        if (events.length === 0) return;
        yield* events;
        afterSeq = events[events.length - 1]!.seq;
      }
    },
  };
}
