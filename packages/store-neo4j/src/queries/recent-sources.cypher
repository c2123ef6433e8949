// recent-sources: the owner's newest live source memories (no DERIVED_FROM
// edge of their own), newest first in write order (createdMs, then rid, the
// insertion sequence). Live as in unreflected-episodes.cypher: not expired,
// not superseded, inside the validity window at $nowMs.
// The plan walks memory_owner_created_rid (0006) backwards, in index order,
// filtering as it goes, and stops at $limit: no sort, and the owner's older
// history is never read. Two things keep it there: the hint (otherwise the
// planner seeks (ownerId, expiresMs) and sorts the owner's whole history),
// and ORDER BY naming every index property, ownerId first (Neo4j 5.26 takes
// its order from a composite index only then, the equality on ownerId
// notwithstanding). The IS NOT NULL predicates let the composite index be
// sought; every memory has createdMs and rid.
// params: $ownerId, $nowMs, $limit (integer)
// returns: m (the node's properties without the embedding)
MATCH (m:Memory)
  USING INDEX m:Memory(ownerId, createdMs, rid)
  WHERE m.ownerId = $ownerId
    AND m.createdMs IS NOT NULL
    AND m.rid IS NOT NULL
    AND m.supersededBy IS NULL
    AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
    AND m.expiresMs > $nowMs
    AND m.validFromMs <= $nowMs
    AND NOT EXISTS { (m)-[:DERIVED_FROM]->() }
WITH m
ORDER BY m.ownerId DESC, m.createdMs DESC, m.rid DESC
LIMIT $limit
RETURN m {.*, embedding: null} AS m
