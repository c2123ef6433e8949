// cascade-supersede-pointers: survivors that pointed at a deleted version
// lose the dangling id, but keep their validity window: a superseded claim
// never comes back by deletion (validTo stays). Found through SUPERSEDES
// edges, which the write adds for every pointer naming a stored memory.
// params: $ownerId, $ids (the closure)
CALL () {
  MATCH (n:Memory)-[:SUPERSEDES]->(old:Memory)
    WHERE n.id IN $ids AND n.ownerId = $ownerId
      AND old.supersededBy IN $ids AND NOT old.id IN $ids
  SET old.supersededBy = null
}
CALL () {
  MATCH (n:Memory)-[:SUPERSEDES]->(old:Memory)
    WHERE old.id IN $ids AND old.ownerId = $ownerId
      AND n.supersedes IN $ids AND NOT n.id IN $ids
  SET n.supersedes = null
}
