-- unreflected-episodes: the owner's live episodes that reflection has not
-- consumed yet, oldest first in write order (created time, then insertion
-- order). Live is what the searches mean by it: not expired, not
-- superseded, inside the validity window at @nowMs.
-- params: @ownerId  the owner
--         @nowMs    epoch ms of "now"
--         @limit    most rows to return (-1: all)
-- returns: every column of memories (rowToMemory reads them)
SELECT m.*
@include unreflected-episodes-live
 ORDER BY m.created_ms, m.rid
 LIMIT @limit
