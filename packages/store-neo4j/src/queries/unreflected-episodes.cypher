// unreflected-episodes: the owner's live episodes that reflection has not
// consumed yet, oldest first in write order (createdMs, then rid, the
// insertion sequence). Live is what the searches mean by it: not expired,
// not superseded, inside the validity window at $nowMs.
// params: $ownerId, $nowMs, $limit (integer)
// returns: m (the node's properties without the embedding)
MATCH (m:Memory {ownerId: $ownerId, kind: 'episode'})
  WHERE m.reflectedAt IS NULL
    AND m.supersededBy IS NULL
    AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
    AND m.expiresMs > $nowMs
    AND m.validFromMs <= $nowMs
RETURN m {.*, embedding: null} AS m
ORDER BY m.createdMs, m.rid
LIMIT $limit
