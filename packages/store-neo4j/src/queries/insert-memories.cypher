// insert-memories: create Memory nodes, their OWNED_BY edges and their
// embeddings. The embedding goes through db.create.setNodeVectorProperty,
// which stores it as a float32 vector (half the size of a LIST<FLOAT>) that
// the vector index reads. A duplicate id breaks memory_id_unique (conflict).
// params: $rows  list of maps: props (node properties, see MemoryProps),
//                embedding (list of floats, or null)
UNWIND $rows AS row
MATCH (o:Owner {id: row.props.ownerId})
CREATE (m:Memory)-[:OWNED_BY]->(o)
SET m = row.props
WITH m, row
WHERE row.embedding IS NOT NULL
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
