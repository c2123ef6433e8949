// link-about: ABOUT edges from memories to the owner's entities, found or
// created by (ownerId, normName, type); the first spelling names the entity.
// params: $links  list of maps: memoryId, ownerId, normName, name, type
UNWIND $links AS l
MATCH (m:Memory {id: l.memoryId})
MERGE (e:Entity {ownerId: l.ownerId, normName: l.normName, type: l.type})
  ON CREATE SET e.name = l.name
MERGE (m)-[:ABOUT]->(e)
