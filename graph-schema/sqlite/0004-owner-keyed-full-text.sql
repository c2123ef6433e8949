-- 0004-owner-keyed-full-text: full-text search scoped to one owner inside
-- FTS5 itself. 0003 matched words across every owner and filtered by owner
-- afterwards, so a small owner paid for the whole store (21 ms at 10k
-- memories over 100 owners). The new `owner_key` column holds one token per
-- owner and queries AND it with the words, so FTS5 only walks that owner's
-- postings. The token is 'zz' + the owner id's UTF-8 bytes in hex, with the
-- 16 hex digits spelt as the consonants b c d f g h j k m n p q r t v w: no
-- vowel, no s, no l, no y, so the porter stemmer leaves it whole, and it is
-- built the same way here (hex() + replace) and in owner-key.ts.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE VIRTUAL TABLE memory_fts_owned USING fts5 (
  text,
  owner_key,
  owner_id UNINDEXED,
  memory_id UNINDEXED,
  content_hash UNINDEXED,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO memory_fts_owned (memory_fts_owned, rank) VALUES ('secure-delete', 1);

INSERT INTO memory_fts_owned (rowid, text, owner_key, owner_id, memory_id, content_hash)
SELECT rowid, text,
       'zz' || replace(replace(replace(replace(replace(replace(replace(replace(
               replace(replace(replace(replace(replace(replace(replace(replace(
               hex(owner_id),
               '0', 'b'), '1', 'c'), '2', 'd'), '3', 'f'), '4', 'g'), '5', 'h'), '6', 'j'), '7', 'k'),
               '8', 'm'), '9', 'n'), 'A', 'p'), 'B', 'q'), 'C', 'r'), 'D', 't'), 'E', 'v'), 'F', 'w'),
       owner_id, memory_id, content_hash
  FROM memory_fts;

DROP TABLE memory_fts;
