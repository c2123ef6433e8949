// Reading one owner's vectors for an index build. Through vec0's own SELECT
// this costs ~60 µs a row (6 s at 100k vectors: it resolves every row from
// its chunk one at a time); reading vec0's chunk tables whole takes a
// fraction of that. The chunk layout is sqlite-vec 0.1.9's (the version
// pinned in package.json): per chunk a validity bitmap, the slots' int64
// rowids, the float32 vectors and one int64 array per metadata column, in
// declaration order (expires_ms, valid_from_ms). A store created by another
// sqlite-vec version, or a read whose count disagrees with owner_vectors,
// uses vec0's SELECT instead, and a test checks the two reads agree.
import type { Statements } from '../queries.ts';
import { VECTOR_TABLE } from '../vector-table.ts';
import type { IndexEntry } from './flat-index.ts';

/** The sqlite-vec version whose chunk layout `fromChunks` reads. */
const LAYOUT_VERSION = 'v0.1.9';

/** The owner's vectors with their validity window, by the fastest read that is safe. */
export function readOwnerVectors(
  st: Statements,
  ownerId: string,
  dimensions: number,
  expected: number,
): IndexEntry[] {
  const fast = layoutKnown(st) ? fromChunks(st, ownerId, dimensions) : null;
  return fast !== null && fast.length === expected ? fast : throughVec0(st, ownerId);
}

function layoutKnown(st: Statements): boolean {
  try {
    const v = st
      .sql(`SELECT value FROM ${VECTOR_TABLE}_info WHERE key = 'CREATE_VERSION'`)
      .pluck()
      .get();
    return v === LAYOUT_VERSION;
  } catch {
    return false;
  }
}

/** vec0's own SELECT: always right, slow for large owners. */
export function throughVec0(st: Statements, ownerId: string): IndexEntry[] {
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

/** The chunk tables read whole; null when they are not as expected. */
export function fromChunks(
  st: Statements,
  ownerId: string,
  dimensions: number,
): IndexEntry[] | null {
  let chunks: {
    validity: Buffer;
    rowids: Buffer;
    vectors: Buffer;
    expires: Buffer;
    valid_from: Buffer;
  }[];
  try {
    chunks = st
      .sql(
        `SELECT c.validity, c.rowids, v.vectors, e.data AS expires, f.data AS valid_from
           FROM ${VECTOR_TABLE}_chunks c
           JOIN ${VECTOR_TABLE}_vector_chunks00 v ON v.rowid = c.chunk_id
           JOIN ${VECTOR_TABLE}_metadatachunks00 e ON e.rowid = c.chunk_id
           JOIN ${VECTOR_TABLE}_metadatachunks01 f ON f.rowid = c.chunk_id
          WHERE c.partition00 = ?`,
      )
      .all(ownerId) as typeof chunks;
  } catch {
    return null;
  }
  const slots: { rowid: number; vector: Float32Array; expiresMs: number; validFromMs: number }[] =
    [];
  const bytesPerVector = dimensions * 4;
  for (const c of chunks) {
    const size = c.validity.length * 8;
    if (
      c.rowids.length !== size * 8 ||
      c.vectors.length !== size * bytesPerVector ||
      c.expires.length !== size * 8 ||
      c.valid_from.length !== size * 8
    )
      return null;
    const rowids = new BigInt64Array(new Uint8Array(c.rowids).buffer);
    const expires = new BigInt64Array(new Uint8Array(c.expires).buffer);
    const validFrom = new BigInt64Array(new Uint8Array(c.valid_from).buffer);
    for (let i = 0; i < size; i++) {
      if ((c.validity[i >> 3]! & (1 << (i & 7))) === 0) continue;
      slots.push({
        rowid: Number(rowids[i]!),
        vector: new Float32Array(
          new Uint8Array(c.vectors.subarray(i * bytesPerVector, (i + 1) * bytesPerVector)).buffer,
        ),
        expiresMs: Number(expires[i]!),
        validFromMs: Number(validFrom[i]!),
      });
    }
  }
  const ids = new Map(
    (
      st
        .sql(
          `SELECT rowid, id FROM ${VECTOR_TABLE}_rowids WHERE rowid IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(slots.map((s) => s.rowid))) as { rowid: number; id: string }[]
    ).map((r) => [r.rowid, r.id]),
  );
  const out: IndexEntry[] = [];
  for (const s of slots) {
    const id = ids.get(s.rowid);
    if (id === undefined) return null;
    out.push({ id, vector: s.vector, expiresMs: s.expiresMs, validFromMs: s.validFromMs });
  }
  return out;
}
