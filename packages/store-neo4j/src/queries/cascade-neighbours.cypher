// cascade-neighbours: the entities, sources and sessions the closure points
// at, collected before the memories go; afterwards each is deleted if
// nothing else holds on to it.
// params: $ownerId, $ids (the closure)
// returns: neighbours (element ids, valid within this transaction)
MATCH (m:Memory)
  WHERE m.id IN $ids AND m.ownerId = $ownerId
MATCH (m)-[:ABOUT|FROM_SOURCE|OBSERVED_IN]->(n)
RETURN collect(DISTINCT elementId(n)) AS neighbours
