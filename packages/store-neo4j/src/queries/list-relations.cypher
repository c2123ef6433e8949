// list-relations: one owner's relation edges with their subject and object
// entities, the reasons given and the memories asserting each edge.
// params: $ownerId    the owner
//         $memoryIds  list of memory ids, or null for every edge
// returns: subjectName, subjectType, type, objectName, objectType,
//          reasons, assertedBy (lists, unsorted)
MATCH (s:Entity)-[r:RELATION]->(o:Entity)
  WHERE r.ownerId = $ownerId
    AND ($memoryIds IS NULL OR any(x IN r.assertedBy WHERE x IN $memoryIds))
RETURN s.name AS subjectName, s.type AS subjectType, r.type AS type,
       o.name AS objectName, o.type AS objectType,
       r.reasons AS reasons, r.assertedBy AS assertedBy
ORDER BY s.normName, r.type, o.normName
