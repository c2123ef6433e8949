// search-text: full-text (Lucene BM25) hits for one owner's live memories.
// The query string is built by toLuceneQuery (owner key term AND quoted
// tokens), so Lucene only returns this owner's documents; expired and
// superseded ones are dropped here, which is why the caller oversamples.
// params: $index (a constant), $query, $k (integer), $ownerId, $nowMs
// returns: fetched, live (list of {id, score, rid}), best first
CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node, score
WITH collect({m: node, score: score}) AS hits
RETURN size(hits) AS fetched,
       [h IN hits
          WHERE h.m.ownerId = $ownerId
            AND h.m.supersededBy IS NULL
            AND (h.m.validToMs IS NULL OR h.m.validToMs > $nowMs)
            AND h.m.expiresMs > $nowMs
            AND h.m.validFromMs <= $nowMs
        | {id: h.m.id, score: h.score, rid: h.m.rid}] AS live
