// cascade-closure: the memories a cascade deletes. The owner's roots, then
// everything reachable from them by inbound DERIVED_FROM (whatever was
// derived from a deleted memory), transitively, each memory once.
// Neo4j 5.26 plans DISTINCT over the far node of a variable-length pattern
// as a pruning expansion per root: a root that descends from another root
// came back twice (`WITH DISTINCT d`, `collect(DISTINCT d)` and
// `DISTINCT d.id` alike), doubling it in the receipt and its counts. The
// ids collected DISTINCT are deduplicated for real, then matched again.
// hasEmbedding looks at the node's property keys, not the 384-float value:
// `d.embedding IS NOT NULL` read every vector, about half of this query's
// time for 1,000 memories (bench/README, cascade).
// params: $ownerId  the owner; roots of other owners are not found
//         $rootIds  list of memory ids
// returns: id, contentHash, isRoot, hasEmbedding; roots first, then by
//          creation time and id
MATCH (r:Memory)
  WHERE r.id IN $rootIds AND r.ownerId = $ownerId
MATCH (d:Memory)-[:DERIVED_FROM*0..]->(r)
  WHERE d.ownerId = $ownerId
WITH collect(DISTINCT d.id) AS ids
UNWIND ids AS id
MATCH (d:Memory {id: id})
RETURN d.id AS id,
       d.contentHash AS contentHash,
       d.id IN $rootIds AS isRoot,
       'embedding' IN keys(d) AS hasEmbedding
ORDER BY isRoot DESC, d.createdMs, d.id
