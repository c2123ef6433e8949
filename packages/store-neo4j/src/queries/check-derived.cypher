// check-derived: which DERIVED_FROM sources exist for the child's owner.
// A source of another owner is "not found": an edge across owners would let
// a cascade or a lineage query cross owners.
// params: $edges  list of maps: childId, sourceId, ownerId
// returns: childId, sourceId, found (boolean)
UNWIND $edges AS e
OPTIONAL MATCH (s:Memory {id: e.sourceId})
  WHERE s.ownerId = e.ownerId
RETURN e.childId AS childId, e.sourceId AS sourceId, s IS NOT NULL AS found
