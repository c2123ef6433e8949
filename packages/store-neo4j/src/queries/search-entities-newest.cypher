// search-entities-newest: the same answer as search-entities, found another
// way: the owner's memories are walked newest first and each is checked
// against the named entities, stopping at $limit. Chosen when the named
// entities are hubs (thousands of memories about one person):
// search-entities reads every hit and sorts them all (26 ms for 5,334 hits
// at 100k), while this walk meets $limit hits after about limit x owner /
// hits memories (6 ms). For a rare entity the walk would visit the whole
// owner, so searchEntities picks by the hit count (search.ts), and passes
// the ids of the memories that assert the entities' relations ($asserted).
// The ORDER BY names ownerId first: only then does the planner take the
// order of the index memory_owner_created_rid (ownerId, createdMs, rid)
// instead of reading and sorting every memory of the owner.
// params: $ownerId, $names, $asserted (memory ids), $nowMs, $limit
// returns: id, score
MATCH (m:Memory)
  WHERE m.ownerId = $ownerId
    AND m.createdMs IS NOT NULL
    AND m.rid IS NOT NULL
    AND m.supersededBy IS NULL
    AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
    AND m.expiresMs > $nowMs
    AND m.validFromMs <= $nowMs
    AND (m.id IN $asserted
         OR EXISTS { (m)-[:ABOUT]->(x:Entity) WHERE x.ownerId = $ownerId AND x.normName IN $names })
RETURN m.id AS id, 1.0 AS score
ORDER BY m.ownerId DESC, m.createdMs DESC, m.rid DESC
LIMIT $limit
