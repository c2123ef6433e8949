-- count-unreflected: how many episodes unreflected-episodes.sql would list
-- without a limit (the reflection trigger's figure), counting at most @upTo.
-- Same filter.
-- params: @ownerId  the owner
--         @nowMs    epoch ms of "now"
--         @upTo     stop counting here (-1: count all)
-- returns: n
SELECT count(*) AS n FROM (
SELECT 1
  FROM memories m
 WHERE m.owner_id = @ownerId
   AND m.kind = 'episode'
   AND m.reflected_at IS NULL
   AND m.superseded_by IS NULL
   AND (m.valid_to_ms IS NULL OR m.valid_to_ms > @nowMs)
   AND m.expires_ms > @nowMs
   AND m.valid_from_ms <= @nowMs
 LIMIT @upTo
)
