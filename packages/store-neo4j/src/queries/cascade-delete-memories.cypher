// cascade-delete-memories: the closure's Memory nodes with all their edges
// (OWNED_BY, DERIVED_FROM both ways, SUPERSEDES, ABOUT, FROM_SOURCE,
// OBSERVED_IN). Their vector and full-text index entries go with the nodes,
// in this transaction.
// params: $ownerId, $ids (the closure)
// returns: deleted
MATCH (m:Memory)
  WHERE m.id IN $ids AND m.ownerId = $ownerId
DETACH DELETE m
RETURN count(*) AS deleted
