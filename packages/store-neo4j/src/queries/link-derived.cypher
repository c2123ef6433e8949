// link-derived: DERIVED_FROM edges, child -> each source (checked first by
// check-derived, so every pair matches).
// params: $edges  list of maps: childId, sourceId
UNWIND $edges AS e
MATCH (c:Memory {id: e.childId})
MATCH (s:Memory {id: e.sourceId})
MERGE (c)-[:DERIVED_FROM]->(s)
