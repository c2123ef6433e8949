-- unreflected-episodes-live (fragment): FROM and WHERE of the owner's live
-- episodes that reflection has not consumed yet, shared by
-- unreflected-episodes (the list) and count-unreflected (its count), so the
-- reflection trigger counts exactly what reflection would read ("live" as
-- unreflected-episodes says).
-- params: @ownerId, @nowMs
  FROM memories m
 WHERE m.owner_id = @ownerId
   AND m.kind = 'episode'
   AND m.reflected_at IS NULL
   AND @include live
