-- 0014-owner-tagged-terms: full-text terms scoped to their owner. 0004 ANDed
-- every query with an owner-key term whose doclist holds all of the owner's
-- memories; walking it was most of a search at 100k memories in one owner,
-- and forgetting rewrote its pages. Here each word is indexed as the owner's
-- tag followed by the word (owner-terms.ts), so every owner's words have
-- doclists of their own. keepgraph_owner_tagged_text(owner_id, text) is the
-- store's own function, registered on every connection before migrating.
-- Term statistics change with it: BM25 counts a word's documents within the
-- owner (its total row count stays the table's).
-- Append-only: never edit this file once applied; add a new one instead.

CREATE VIRTUAL TABLE memory_fts_terms USING fts5 (
  text,
  owner_id UNINDEXED,
  memory_id UNINDEXED,
  content_hash UNINDEXED,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO memory_fts_terms (memory_fts_terms, rank) VALUES ('secure-delete', 1);

INSERT INTO memory_fts_terms (rowid, text, owner_id, memory_id, content_hash)
SELECT rowid, keepgraph_owner_tagged_text(owner_id, text), owner_id, memory_id, content_hash
  FROM memory_fts_owned;

DROP TABLE memory_fts_owned;
