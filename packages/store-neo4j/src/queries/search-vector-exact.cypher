// search-vector-exact: the owner's and the store's sizes, and exact cosine
// scoring over the owner's live memories when the owner is small enough
// ($exactBelow). One round trip serves a small owner whole; a larger one
// gets its sizes back, which size the approximate index's query
// (search-vector-index). The exact part reads only the owner's nodes
// (memory_owner index), so a small owner among millions is scored
// completely, with no approximate index in between. The store's count comes
// from Neo4j's count store, the owner's from its counter.
// vector.similarity.cosine is normalised to [0, 1]; 2s - 1 is the cosine.
// params: $ownerId, $vector (list of floats), $nowMs, $limit (integer),
//         $exactBelow (integer: score exactly when the owner has fewer memories)
// returns one row: owner (count, null without an Owner node), total, and
//         hits (list of {id, score, rid}; best first, ties newest written
//         first; empty when the owner is not below $exactBelow)
CALL () { MATCH (n:Memory) RETURN count(n) AS total }
OPTIONAL MATCH (o:Owner {id: $ownerId})
WITH total, o.memoryCount AS owner
CALL (owner) {
  WITH owner WHERE owner > 0 AND owner < $exactBelow
  MATCH (m:Memory {ownerId: $ownerId})
    WHERE m.embedding IS NOT NULL
      AND m.supersededBy IS NULL
      AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
      AND m.expiresMs > $nowMs
      AND m.validFromMs <= $nowMs
  WITH m, 2 * vector.similarity.cosine(m.embedding, $vector) - 1 AS score
  ORDER BY score DESC, m.rid DESC
  LIMIT $limit
  // An aggregate over no rows is still one row: a larger owner gets [].
  RETURN collect({id: m.id, score: score, rid: m.rid}) AS hits
}
RETURN owner, total, hits
