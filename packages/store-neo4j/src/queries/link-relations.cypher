// link-relations: relation edges between the owner's entities, with the
// asserting memory appended to assertedBy and its reason to reasons
// (parallel lists; '' = no reason). One generic RELATION edge type with
// the relation type as a property: relation types are caller input, and a
// relationship type cannot be a query parameter.
// The edge is write-locked (SET _lock) before assertedBy is read, so two
// transactions asserting the same edge cannot lose each other's update.
// params: $links  list of maps: memoryId, ownerId, type, reason,
//                 subject {normName, name, type}, object {normName, name, type}
UNWIND $links AS l
MERGE (s:Entity {ownerId: l.ownerId, normName: l.subject.normName, type: l.subject.type})
  ON CREATE SET s.name = l.subject.name
MERGE (o:Entity {ownerId: l.ownerId, normName: l.object.normName, type: l.object.type})
  ON CREATE SET o.name = l.object.name
MERGE (s)-[r:RELATION {type: l.type}]->(o)
  ON CREATE SET r.ownerId = l.ownerId, r.assertedBy = [], r.reasons = []
SET r._lock = true
REMOVE r._lock
WITH r, l
SET r.reasons = CASE WHEN l.memoryId IN r.assertedBy THEN r.reasons ELSE r.reasons + l.reason END,
    r.assertedBy = CASE WHEN l.memoryId IN r.assertedBy THEN r.assertedBy ELSE r.assertedBy + l.memoryId END
