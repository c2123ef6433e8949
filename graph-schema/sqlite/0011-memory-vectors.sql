-- 0011-memory-vectors: memory embeddings in a plain table instead of a
-- sqlite-vec vec0 virtual table. vec0 deletes row by row inside its chunk
-- blobs: forgetting 1,000 derived memories spent ~300 ms of a ~360 ms
-- cascade there; here the same deletes are ordinary b-tree deletes
-- (~25 ms), zeroed by secure_delete like every other row. Small owners are
-- scanned with sqlite-vec's vec_distance_cosine; large ones go through the
-- in-memory index built from this table. The vectors of a store made before
-- this migration are moved from memory_vec when the store opens (the
-- extension that reads vec0 is loaded there), and memory_vec is dropped.
-- The dimension is not part of the column: it is recorded in meta
-- ('vector_dimensions') and every write is checked against it.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE TABLE memory_vectors (
  memory_id     TEXT PRIMARY KEY,
  owner_id      TEXT NOT NULL,
  embedding     BLOB NOT NULL,
  expires_ms    INTEGER NOT NULL,
  valid_from_ms INTEGER NOT NULL
) STRICT;

CREATE INDEX memory_vectors_by_owner ON memory_vectors (owner_id);
