// The sqlite-vec index of memory embeddings. Its dimension is only known at
// init() time, so it is created here rather than in a numbered migration,
// and the dimension is recorded in `meta` so a reopen with another model's
// dimension is refused instead of silently mixing vector spaces.
import { KeepGraphError } from '@keepgraph/core';
import type { Db } from './open-database.ts';

/** Name of the vec0 virtual table. */
export const VECTOR_TABLE = 'memory_vec';

/** sqlite-vec's upper bound on vector length. */
export const MAX_DIMENSIONS = 8192;

const META_KEY = 'vector_dimensions';

/**
 * Vectors per vec0 chunk. Each owner (partition) gets whole chunks, so
 * vec0's default of 1024 gave every small owner 1.5 MB of 384-d slots: 300
 * owners of 10 memories beside one of 50k made a 538 MiB file; 256 makes it
 * 196 MiB at the same KNN and delete speed (64 is smaller still but slows a
 * 50k owner's KNN by half). Stores created before keep their chunk size.
 */
const CHUNK_SIZE = 256;

/**
 * Create the vec0 table for `dimensions`, or check that the existing one
 * has that dimension. The owner is the partition key, so a KNN query only
 * ever scans one owner's vectors; expiry and validity are metadata columns
 * so the KNN can skip expired or not-yet-valid memories itself.
 */
export function ensureVectorTable(db: Db, dimensions: number): void {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new KeepGraphError(
      'invalid_input',
      `dimensions must be an integer in [1, ${MAX_DIMENSIONS}]`,
      { dimensions },
    );
  }
  const run = db.transaction(() => {
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(META_KEY) as
      { value: string } | undefined;
    if (row) {
      const existing = Number(row.value);
      if (existing !== dimensions) {
        throw new KeepGraphError(
          'invalid_input',
          `this store was created for ${existing}-dimensional embeddings, not ${dimensions}; use the same embedding model or a new store`,
          { existing, requested: dimensions },
        );
      }
      return;
    }
    // `dimensions` is a validated integer: the only value spliced into DDL,
    // because virtual-table arguments cannot be bound as parameters.
    db.exec(`CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0 (
      memory_id TEXT PRIMARY KEY,
      owner_id TEXT PARTITION KEY,
      embedding FLOAT[${dimensions}] DISTANCE_METRIC=cosine,
      expires_ms INTEGER,
      valid_from_ms INTEGER,
      chunk_size = ${CHUNK_SIZE}
    )`);
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(META_KEY, String(dimensions));
  });
  run.immediate();
}

/** The dimension recorded for this store, or null before init. */
export function vectorDimensions(db: Db): number | null {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(META_KEY) as
    { value: string } | undefined;
  return row ? Number(row.value) : null;
}
