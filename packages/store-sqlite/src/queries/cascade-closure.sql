-- cascade-closure: the memories a cascade deletes. The owner's roots, then
-- everything reachable from them by inbound DERIVED_FROM (whatever was
-- derived from a deleted memory), transitively. UNION (not UNION ALL)
-- stops at memories already reached, so a cycle cannot loop forever.
-- params: @ownerId  the owner; roots of other owners are not found
--         @rootIds  JSON array of memory ids
-- returns: id, rid, content_hash, is_root (1/0), in discovery order
-- CROSS JOIN fixes the join order: from the closure into the indexes. Left
-- to itself the planner walked all of the owner's edges and memories for
-- each step (1,000 derived memories in an owner of 1,200: 420 ms).
WITH RECURSIVE closure (id) AS (
  SELECT m.id
    FROM memories m
   WHERE m.owner_id = @ownerId
     AND m.id IN (SELECT value FROM json_each(@rootIds))
  UNION
  SELECT d.child_id
    FROM closure c
    CROSS JOIN derived_from d ON d.owner_id = @ownerId AND d.source_id = c.id
)
SELECT m.id,
       m.rid,
       m.content_hash,
       m.id IN (SELECT value FROM json_each(@rootIds)) AS is_root
  FROM closure c
  CROSS JOIN memories m ON m.id = c.id AND m.owner_id = @ownerId
 ORDER BY is_root DESC, m.created_ms, m.id
