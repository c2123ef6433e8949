// count-unreflected: how many episodes unreflected-episodes.cypher would
// list without a limit (the reflection trigger's figure). Same filter.
// params: $ownerId, $nowMs
// returns: n
MATCH (m:Memory {ownerId: $ownerId, kind: 'episode'})
  WHERE m.reflectedAt IS NULL
    AND m.supersededBy IS NULL
    AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
    AND m.expiresMs > $nowMs
    AND m.validFromMs <= $nowMs
RETURN count(m) AS n
