// replace-embeddings: new vectors for the owner's memories. The vector goes
// through db.create.setNodeVectorProperty (a float32 vector, as
// insert-memories stores it), so the vector index sees the new one at
// commit. Owner-scoped: ids the owner lacks match nothing and are ignored.
// params: $ownerId
//         $updates  list of maps: id, embedding (list of floats), model
UNWIND $updates AS u
MATCH (m:Memory {id: u.id})
  WHERE m.ownerId = $ownerId
SET m.embeddingModel = u.model
WITH m, u
CALL db.create.setNodeVectorProperty(m, 'embedding', u.embedding)
