-- live-by-rid: which of these rows are the owner's live memories (not
-- superseded, not ended, not expired, already valid). Full text ranks by
-- rowid, shared with memories.rid; this turns its ranked rows into ids.
-- `+owner_id`: each row found by its rid, not through the owner's index
-- (which the planner otherwise picks, walking every memory of the owner:
-- 5 ms at 100k for 100 rows).
-- params: @ownerId  owner
--         @rids     JSON array of memories.rid
--         @nowMs    epoch ms of "now"
-- returns: id, rid
SELECT m.id, m.rid
  FROM memories m
 WHERE m.rid IN (SELECT value FROM json_each(@rids))
   AND +m.owner_id = @ownerId
   AND @include live
