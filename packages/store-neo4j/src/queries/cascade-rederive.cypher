// cascade-rederive: closure members (other than the roots the caller chose
// to delete) that also have sources outside the closure. Those sources
// survive, so a job can rebuild the derived memory from them alone.
// Computed before the edges go: the DERIVED_FROM edges are the evidence.
// params: $ownerId  the owner
//         $closure  every memory id the cascade deletes
//         $rootIds  the requested roots
// returns: id, kind and tags (the deleted derived memory's: what to rebuild),
//          surviving (list of surviving source ids)
MATCH (c:Memory)-[:DERIVED_FROM]->(s:Memory)
  WHERE c.id IN $closure AND c.ownerId = $ownerId
    AND NOT c.id IN $rootIds AND NOT s.id IN $closure
WITH c.id AS id, c.kind AS kind, c.tags AS tags, collect(DISTINCT s.id) AS surviving
RETURN id, kind, tags, surviving
ORDER BY id
