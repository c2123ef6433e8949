// search-text-pool: one owner's full-text hits, with their text when they
// are every match of the query (owner-bm25.ts ranks those with the owner's
// statistics; otherwise the caller keeps Lucene's order). An owner of at
// most $pool memories is asked for $pool + 1 hits, so its matches always
// come whole; a larger owner for $k, whole when fewer come back. The query
// string is built by toLuceneQuery (owner key term AND quoted tokens), so
// Lucene only returns this owner's documents.
// params: $index (a constant), $query, $pool, $k (integers), $ownerId, $nowMs
// returns: asked, whole, owner (the owner's memory count), total (the store's: both
//          size the vector search that follows, recent-sizes.ts),
//          hits (list of {id, score, rid, live, text}), Lucene's best first
CALL () { MATCH (m:Memory) RETURN count(m) AS total }
MATCH (o:Owner {id: $ownerId})
WITH o, total, CASE WHEN o.memoryCount <= $pool THEN $pool + 1 ELSE $k END AS asked
CALL db.index.fulltext.queryNodes($index, $query, {limit: asked}) YIELD node, score
WITH o, total, asked, collect({m: node, score: score}) AS hits
WITH o, total, asked, hits, size(hits) < asked AS whole
RETURN asked, whole, o.memoryCount AS owner, total,
       [h IN hits WHERE h.m.ownerId = $ownerId
        | {id: h.m.id, score: h.score, rid: h.m.rid,
           live: h.m.supersededBy IS NULL
                 AND (h.m.validToMs IS NULL OR h.m.validToMs > $nowMs)
                 AND h.m.expiresMs > $nowMs
                 AND h.m.validFromMs <= $nowMs,
           text: CASE WHEN whole THEN h.m.text END}] AS hits
