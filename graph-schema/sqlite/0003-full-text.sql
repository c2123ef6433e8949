-- 0003-full-text: the FTS5 index over memory text (BM25 ranking).
-- A regular (not contentless) FTS5 table: FTS5 needs a row's tokens to
-- remove them from the index, and only a table that keeps its text knows
-- them; a contentless table would leave the words of a forgotten memory in
-- the index as tombstoned entries until some later merge. With
-- 'secure-delete' on, a DELETE removes the tokens from the index at once,
-- and PRAGMA secure_delete zeroes the freed content.
-- owner_id, memory_id and content_hash are UNINDEXED: for owner filtering
-- and for findTraces. rowid = memories.rid.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE VIRTUAL TABLE memory_fts USING fts5 (
  text,
  owner_id UNINDEXED,
  memory_id UNINDEXED,
  content_hash UNINDEXED,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO memory_fts (memory_fts, rank) VALUES ('secure-delete', 1);
