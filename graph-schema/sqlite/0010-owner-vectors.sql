-- 0010-owner-vectors: per owner, how many vectors it has and the epoch of
-- its last vector change. Every transaction that adds or removes an owner's
-- vectors raises its epoch to a store-wide counter (meta 'vector_epoch'),
-- so a process holding an in-memory index of that owner sees, with one
-- point read, whether another process changed the vectors since it built
-- it; the count decides whether an owner is large enough to be indexed.
-- Filled from the vector table when the store opens (the vector table is
-- created there, once the dimension is known).
-- Append-only: never edit this file once applied; add a new one instead.

CREATE TABLE owner_vectors (
  owner_id TEXT PRIMARY KEY,
  vectors  INTEGER NOT NULL,
  epoch    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
