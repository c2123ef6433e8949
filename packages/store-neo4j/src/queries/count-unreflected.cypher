// count-unreflected: how many episodes unreflected-episodes.cypher would
// list without a limit (the reflection trigger's figure), counting at most
// $upTo. Same filter.
// params: $ownerId, $nowMs, $upTo
// returns: n
MATCH (m:Memory {ownerId: $ownerId, kind: 'episode'})
  WHERE m.reflectedAt IS NULL
    AND m.supersededBy IS NULL
    AND (m.validToMs IS NULL OR m.validToMs > $nowMs)
    AND m.expiresMs > $nowMs
    AND m.validFromMs <= $nowMs
WITH m LIMIT $upTo
RETURN count(m) AS n
