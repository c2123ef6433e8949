-- recent-sources: the owner's newest live source memories (no DERIVED_FROM
-- edge of their own: no derived_from row with them as child), newest first
-- in write order (created time, then insertion order). Live as in
-- unreflected-episodes.sql: not expired, not superseded, inside the validity
-- window at @nowMs. Walks memories_owner_created (0006) backwards (the index
-- ends with rid, so it gives the whole order: no sort) and stops at @limit:
-- the owner's older history is never read. INDEXED BY pins that plan (the
-- planner picks it anyway today; statistics must not swap in another owner
-- index and a sort of the owner's whole history).
-- params: @ownerId  the owner
--         @nowMs    epoch ms of "now"
--         @limit    most rows to return
-- returns: every column of memories (rowToMemory reads them)
SELECT m.*
  FROM memories m INDEXED BY memories_owner_created
 WHERE m.owner_id = @ownerId
   AND @include live
   AND NOT EXISTS (SELECT 1 FROM derived_from d WHERE d.child_id = m.id)
 ORDER BY m.created_ms DESC, m.rid DESC
 LIMIT @limit
