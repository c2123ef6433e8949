// cascade-closure: the memories a cascade deletes. The owner's roots, then
// everything reachable from them by inbound DERIVED_FROM (whatever was
// derived from a deleted memory), transitively. DISTINCT on the far end
// lets the planner prune the variable-length expansion (breadth-first, each
// node once), so a DAG with shared descendants does not explode into paths.
// params: $ownerId  the owner; roots of other owners are not found
//         $rootIds  list of memory ids
// returns: id, contentHash, isRoot, hasEmbedding; roots first, then by
//          creation time and id
MATCH (r:Memory)
  WHERE r.id IN $rootIds AND r.ownerId = $ownerId
MATCH (d:Memory)-[:DERIVED_FROM*0..]->(r)
WITH DISTINCT d
  WHERE d.ownerId = $ownerId
RETURN d.id AS id,
       d.contentHash AS contentHash,
       d.id IN $rootIds AS isRoot,
       d.embedding IS NOT NULL AS hasEmbedding
ORDER BY isRoot DESC, d.createdMs, d.id
