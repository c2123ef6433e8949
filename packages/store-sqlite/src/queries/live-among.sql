-- live-among: which of these of the owner's memories are live now (not
-- superseded, not ended, not expired, already valid), with their insertion
-- order for tie-breaks. The in-memory vector index knows vectors and their
-- expiry only; supersession is checked here, as search-vector does after
-- its KNN.
-- params: @ownerId  owner
--         @ids      JSON array of memory ids
--         @nowMs    epoch ms of "now"
-- returns: id, rid
SELECT m.id, m.rid
  FROM memories m
 WHERE m.owner_id = @ownerId
   AND m.id IN (SELECT value FROM json_each(@ids))
   AND @include live
