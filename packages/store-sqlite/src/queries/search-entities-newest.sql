-- search-entities-newest: the same answer as search-entities, found another
-- way: the owner's memories are walked newest first (memories_owner_created,
-- whose order is created_ms then rid) and each is checked against the hits,
-- stopping at @limit. Chosen when the named entities are hubs (thousands of
-- memories about one person): search-entities looks every hit up and sorts
-- them all (6-8 ms alone for 5,000 hits at 100k, 9-20 ms inside a recall),
-- while this walk meets @limit hits after about limit x owner / hits rows.
-- For a rare entity the walk would visit the whole owner, so searchEntities
-- picks by the hit count.
-- params: @ownerId, @names, @nowMs, @limit (as search-entities)
-- returns: id, score
@include entity-hits
SELECT m.id, 1.0 AS score
  FROM memories m INDEXED BY memories_owner_created
 WHERE m.owner_id = @ownerId
   AND m.id IN (SELECT id FROM hits)
   AND @include live
 ORDER BY m.created_ms DESC, m.rid DESC
 LIMIT @limit
