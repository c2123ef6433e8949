// search-vector-exact: exact cosine scoring over one owner's live memories.
// Used for owners below the exact-search threshold: it reads only the
// owner's nodes (memory_owner index), so a small owner among millions is
// scored completely, with no approximate index in between.
// vector.similarity.cosine is normalised to [0, 1]; 2s - 1 is the cosine.
// params: $ownerId, $vector (list of floats), $nowMs, $limit (integer)
// returns: id, score (cosine similarity in [-1, 1]), rid; best first, ties newest written first
MATCH (m:Memory {ownerId: $ownerId})
  WHERE m.embedding IS NOT NULL
    AND m.supersededBy IS NULL
    AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
    AND m.expiresMs > $nowMs
    AND m.validFromMs <= $nowMs
WITH m, 2 * vector.similarity.cosine(m.embedding, $vector) - 1 AS score
RETURN m.id AS id, score, m.rid AS rid
ORDER BY score DESC, rid DESC
LIMIT $limit
