// search-vector-index: the global HNSW vector index, then the owner and
// liveness filter. The index knows no owners, so the caller asks for more
// neighbours than it needs ($k) and widens k until enough of this owner's
// live memories survive. Hits are rescored exactly (the index may quantize).
// params: $index (index name, a constant), $k (integer), $vector, $ownerId, $nowMs
// returns: fetched (how many the index returned), live (list of {id, score, rid})
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node
WITH collect(node) AS hits
RETURN size(hits) AS fetched,
       [m IN hits
          WHERE m.ownerId = $ownerId
            AND m.supersededBy IS NULL
            AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
            AND m.expiresMs > $nowMs
            AND m.validFromMs <= $nowMs
        | {id: m.id, score: 2 * vector.similarity.cosine(m.embedding, $vector) - 1, rid: m.rid}] AS live
