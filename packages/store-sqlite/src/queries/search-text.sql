-- search-text: BM25 full-text hits for one owner's live memories.
-- bm25() is lower-is-better, so the score is its negation. @match holds
-- only the owner's tagged terms (owner-terms.ts). Equal scores (common:
-- short turns that each name the same person once) go newest written first,
-- by insertion order, so a run over the same writes ranks the same.
-- Only matches at or after @minRid are ranked (the caller's window of the
-- newest matches): FTS5 computes bm25 for every row it ranks. The owner is
-- scoped twice: its tag in @match, and the join on memories.owner_id (the
-- full-text table's own owner_id column is not read: an unindexed column
-- costs a row read per match).
-- params: @ownerId  the owner
--         @match    FTS5 expression built by toFtsMatch (quoted tokens only)
--         @minRid   lowest rowid to rank (0 = every match)
--         @nowMs    epoch ms of "now"
--         @limit    results to return
-- returns: id, score (higher is better)
SELECT m.id, -bm25(memory_fts_terms) AS score
  FROM memory_fts_terms
  JOIN memories m ON m.rid = memory_fts_terms.rowid
 WHERE memory_fts_terms MATCH @match
   AND memory_fts_terms.rowid >= @minRid
   AND m.owner_id = @ownerId
   AND @include live
 ORDER BY score DESC, m.rid DESC
 LIMIT @limit
