// search-entities: live memories of one owner that are ABOUT an entity with
// one of the given normalized names, or that assert a relation edge whose
// subject or object is such an entity (a memory stating "user
// PREFERS_AGAINST peanuts" is about peanuts). Every hit scores 1; newest first.
// params: $ownerId, $names (normalized, normalizeEntityName), $nowMs, $limit
// returns: id, score
MATCH (e:Entity)
  WHERE e.ownerId = $ownerId AND e.normName IN $names
CALL (e) {
  MATCH (m:Memory)-[:ABOUT]->(e)
  RETURN m
  UNION
  MATCH (e)-[r:RELATION]-(:Entity)
  UNWIND r.assertedBy AS memoryId
  MATCH (m:Memory {id: memoryId})
  RETURN m
}
WITH DISTINCT m
  WHERE m.ownerId = $ownerId
    AND m.supersededBy IS NULL
    AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
    AND m.expiresMs > $nowMs
    AND m.validFromMs <= $nowMs
RETURN m.id AS id, 1.0 AS score
ORDER BY m.createdMs DESC, m.rid DESC
LIMIT $limit
