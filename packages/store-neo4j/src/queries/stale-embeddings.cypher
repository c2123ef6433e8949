// stale-embeddings: the owner's memories embedded by another model than
// $model, or by none (no embeddingModel property), oldest first in write
// order (re-embedding's queue).
// params: $ownerId, $model, $limit (integer)
// returns: id
MATCH (m:Memory {ownerId: $ownerId})
  WHERE m.embeddingModel IS NULL OR m.embeddingModel <> $model
RETURN m.id AS id
ORDER BY m.createdMs, m.rid
LIMIT $limit
