// get-embeddings: the stored vectors of the named memories of one owner.
// Owner-scoped: ids of another owner, unknown ids, and memories stored
// without a vector match nothing and are left out.
// params: $ownerId  the owner
//         $ids      list of memory ids (distinct)
// returns: id, embedding (list of floats)
UNWIND $ids AS id
MATCH (m:Memory {id: id})
  WHERE m.ownerId = $ownerId AND m.embedding IS NOT NULL
RETURN m.id AS id, m.embedding AS embedding
