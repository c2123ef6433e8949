-- unreflected-episodes: the owner's live episodes that reflection has not
-- consumed yet, oldest first in write order (created time, then insertion
-- order). Live is what the searches mean by it: not expired, not
-- superseded, inside the validity window at @nowMs.
-- params: @ownerId  the owner
--         @nowMs    epoch ms of "now"
--         @limit    most rows to return (-1: all)
-- returns: every column of memories (rowToMemory reads them)
SELECT m.*
  FROM memories m
 WHERE m.owner_id = @ownerId
   AND m.kind = 'episode'
   AND m.reflected_at IS NULL
   AND m.superseded_by IS NULL
   AND (m.valid_to_ms IS NULL OR m.valid_to_ms > @nowMs)
   AND m.expires_ms > @nowMs
   AND m.valid_from_ms <= @nowMs
 ORDER BY m.created_ms, m.rid
 LIMIT @limit
