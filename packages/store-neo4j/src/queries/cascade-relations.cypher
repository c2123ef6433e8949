// cascade-relations: drop the closure's assertions from the owner's relation
// edges (assertedBy and the parallel reasons list), then delete the edges
// no surviving memory asserts. Each edge is write-locked before it is read.
// params: $ownerId, $ids (the closure)
// returns: deleted (edges removed), entities (element ids of the touched
//          edges' endpoints, candidates for orphan deletion)
MATCH (s:Entity)-[r:RELATION]->(o:Entity)
  WHERE r.ownerId = $ownerId AND any(x IN r.assertedBy WHERE x IN $ids)
SET r._lock = true
REMOVE r._lock
WITH s, r, o
WITH s, r, o,
     [i IN range(0, size(r.assertedBy) - 1) WHERE NOT r.assertedBy[i] IN $ids | coalesce(r.reasons[i], '')] AS reasons,
     [x IN r.assertedBy WHERE NOT x IN $ids] AS asserted
SET r.reasons = reasons, r.assertedBy = asserted
WITH s, r, o, size(asserted) = 0 AS orphan
FOREACH (_ IN CASE WHEN orphan THEN [1] ELSE [] END | DELETE r)
RETURN sum(CASE WHEN orphan THEN 1 ELSE 0 END) AS deleted,
       collect(DISTINCT elementId(s)) + collect(DISTINCT elementId(o)) AS entities
