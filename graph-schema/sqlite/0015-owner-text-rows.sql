-- 0015-owner-text-rows: per owner, how many full-text rows it has and how
-- many tokens they hold. FTS5's bm25() takes a term's IDF from the whole
-- table's row count and a row's length against the whole table's average,
-- so in a store of many owners an owner's ranking depended on what the
-- others had written (bench/README: locomo-dev beside 1,000 other owners
-- lost 15 points of R@5 with full text alone). Full-text search reads these
-- to rank with the owner's own statistics (search-text.ts). Kept beside the
-- full-text rows: written with them (write-batch.ts), lowered with their
-- deletion (delete-cascade.ts). keepgraph_fts_row_tokens(sz) is the store's
-- own function (full-text-statistics.ts), registered on every connection
-- before migrating: a row's token count from FTS5's docsize record.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE TABLE owner_text_rows (
  owner_id TEXT PRIMARY KEY,
  rows     INTEGER NOT NULL,
  tokens   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

INSERT INTO owner_text_rows (owner_id, rows, tokens)
SELECT f.owner_id, count(*), coalesce(sum(keepgraph_fts_row_tokens(d.sz)), 0)
  FROM memory_fts_terms f
  LEFT JOIN memory_fts_terms_docsize d ON d.id = f.rowid
 GROUP BY f.owner_id;
