// find-by-source: ids of one owner's memories whose own origin or inherited
// origins (sourceOrigins) name a source uri or a tool. Starts from the
// Source nodes (indexed by uri), then keeps the owner's memories.
// params: $ownerId  the owner
//         $uri      a document/URL uri, or null
//         $tool     a tool name, or null (tools are sources of kind 'tool')
// returns: id, sorted
MATCH (s:Source)
  WHERE s.uri = $uri OR (s.kind = 'tool' AND s.uri = $tool)
MATCH (m:Memory)-[:FROM_SOURCE]->(s)
  WHERE m.ownerId = $ownerId
RETURN DISTINCT m.id AS id
ORDER BY id
