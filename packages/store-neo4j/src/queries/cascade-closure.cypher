// cascade-closure: the memories a cascade deletes, and what each keeps. The
// owner's roots, then everything reachable from them by inbound DERIVED_FROM
// (whatever was derived from a deleted memory), transitively, each memory
// once; with each derived memory's sources outside the closure, which
// survive it, so a job can rebuild it from them alone (computed before any
// edge goes: the DERIVED_FROM edges are the evidence).
// Neo4j 5.26 plans DISTINCT over the far node of a variable-length pattern
// as a pruning expansion per root: a root that descends from another root
// came back twice (`WITH DISTINCT d`, `collect(DISTINCT d)` and
// `DISTINCT d.id` alike), doubling it in the receipt and its counts. The
// ids collected DISTINCT are deduplicated for real, then matched again.
// On a young database the indexes' statistics lag: every index looks empty
// and free to scan, and a plan cached then is kept until the next replan.
// Seen on fresh servers: the closure started from the owner's memories, and
// the surviving sources (written as a pattern with s:Memory and s.id) from
// a scan of the id index: 300-520 ms for 100-110 memories, 6 cascades running. So
// the roots are found by a seek the planner must use (USING INDEX SEEK) and
// the sources are read from d's edges, with no label or property of s to
// start from, and filtered afterwards.
// hasEmbedding looks at the node's property keys, not the 384-float value:
// `d.embedding IS NOT NULL` read every vector, about half of this query's
// time for 1,000 memories (bench/README, cascade).
// params: $ownerId  the owner; roots of other owners are not found
//         $rootIds  list of memory ids
//         $requestedRoots  the roots that are not re-derived ($rootIds, or a
//                  wider cascade's own roots when this is one of its steps)
//         $outside  ids that do not survive either (the rest of a wider
//                  cascade run in steps; else empty)
// returns: id, contentHash, isRoot, hasEmbedding, kind, tags, surviving
//          (ids of surviving sources, possibly repeated; always empty for a
//          root); roots first, then by creation time and id
MATCH (r:Memory)
  USING INDEX SEEK r:Memory(id)
  WHERE r.id IN $rootIds AND r.ownerId = $ownerId
MATCH (d:Memory)-[:DERIVED_FROM*0..]->(r)
  WHERE d.ownerId = $ownerId
WITH collect(DISTINCT d.id) AS ids
UNWIND ids AS id
MATCH (d:Memory {id: id})
RETURN d.id AS id,
       d.contentHash AS contentHash,
       d.id IN $rootIds AS isRoot,
       'embedding' IN keys(d) AS hasEmbedding,
       d.kind AS kind,
       d.tags AS tags,
       CASE WHEN d.id IN $requestedRoots THEN []
            ELSE [x IN [(d)-[:DERIVED_FROM]->(s) | s.id] WHERE NOT x IN ids AND NOT x IN $outside]
       END AS surviving
ORDER BY isRoot DESC, d.createdMs, d.id
