-- stale-embeddings: the owner's memories embedded by another model than
-- @model, or by none, oldest first in write order (re-embedding's queue).
-- "< or >" rather than "<>": each term is a range of the (owner_id,
-- embedding_model) index, so the scan reads only the stale rows, however
-- many are already re-embedded; only those are sorted.
-- params: @ownerId  the owner
--         @model    the current embedding model
--         @limit    most ids to return
-- returns: id
SELECT id
  FROM memories
 WHERE owner_id = @ownerId
   AND (embedding_model IS NULL OR embedding_model < @model OR embedding_model > @model)
 ORDER BY created_ms, rid
 LIMIT @limit
