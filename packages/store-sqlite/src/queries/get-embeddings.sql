-- get-embeddings: the stored vectors of the named memories of one owner.
-- memories is the outer loop (owner-scoped, by its primary key), so each
-- vec0 row is a point lookup on memory_id rather than a scan of the table;
-- ids the owner lacks, or memories stored without a vector, give no row.
-- params: @ownerId  the owner
--         @ids      JSON array of memory ids
-- returns: id, embedding (float32 BLOB of the store's dimension)
SELECT m.id, v.embedding
  FROM memories m
  JOIN memory_vec v ON v.memory_id = m.id
 WHERE m.owner_id = @ownerId
   AND m.id IN (SELECT value FROM json_each(@ids))
