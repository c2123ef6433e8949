// The memory embeddings table (migration 0011). Its dimension is only known
// at init() time, so it is recorded in `meta` then, and a reopen with
// another model's dimension is refused instead of silently mixing vector
// spaces. A store made before 0011 kept its vectors in a sqlite-vec vec0
// table; they are moved here on the first open and that table is dropped.
import { KeepGraphError } from '@keepgraph/core';
import type { Db } from './open-database.ts';

/** Name of the embeddings table. */
export const VECTOR_TABLE = 'memory_vectors';

/** The vec0 table of stores made before migration 0011. */
const LEGACY_VEC0_TABLE = 'memory_vec';

/** sqlite-vec's upper bound on vector length (its distance functions refuse longer). */
export const MAX_DIMENSIONS = 8192;

const META_KEY = 'vector_dimensions';

/**
 * Record `dimensions` for a new store, or check that an existing one has
 * that dimension; then move a legacy vec0 table's vectors, if any.
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
    } else {
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(META_KEY, String(dimensions));
    }
    moveLegacyVectors(db);
  });
  run.immediate();
}

/**
 * Copy a vec0 table's rows into memory_vectors and drop it, in the caller's
 * transaction: a crash leaves either the old layout or the new one. Dropping
 * frees its pages, which secure_delete zeroes, so no moved vector lingers in
 * the file. Reading vec0 whole costs about 60 µs a row (6 s at 100k), once.
 */
function moveLegacyVectors(db: Db): void {
  const legacy = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(LEGACY_VEC0_TABLE);
  if (!legacy) return;
  db.prepare(
    `INSERT INTO ${VECTOR_TABLE} (memory_id, owner_id, embedding, expires_ms, valid_from_ms)
       SELECT memory_id, owner_id, embedding, expires_ms, valid_from_ms FROM ${LEGACY_VEC0_TABLE}`,
  ).run();
  db.exec(`DROP TABLE ${LEGACY_VEC0_TABLE}`);
}

/** The dimension recorded for this store, or null before init. */
export function vectorDimensions(db: Db): number | null {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(META_KEY) as
    { value: string } | undefined;
  return row ? Number(row.value) : null;
}
