-- search-entities: live memories of one owner that are ABOUT an entity with
-- one of the given normalized names, or that assert a relation edge whose
-- subject or object is such an entity (a memory stating "user PREFERS_AGAINST
-- peanuts" is about peanuts). Every hit scores 1; newest first.
-- params: @ownerId  the owner
--         @names    JSON array of normalized names (normalizeEntityName)
--         @nowMs    epoch ms of "now"
--         @limit    results to return
-- returns: id, score
-- CROSS JOIN: from the hits into memories by id, never a walk over all of
-- the owner's memories probing the hits (44 ms at 100k with no hit at all).
@include entity-hits
SELECT m.id, 1.0 AS score
  FROM hits
  CROSS JOIN memories m ON m.id = hits.id AND m.owner_id = @ownerId
 WHERE @include live
 ORDER BY m.created_ms DESC, m.rid DESC
 LIMIT @limit
