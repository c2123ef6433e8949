-- get-embeddings: the stored vectors of the named memories of one owner.
-- Each id is a primary-key lookup in memory_vectors (`+owner_id` keeps the
-- planner off the owner's index, which would visit all the owner's rows);
-- ids the owner lacks, or memories stored without a vector, give no row.
-- params: @ownerId  the owner
--         @ids      JSON array of memory ids
-- returns: id, embedding (float32 BLOB of the store's dimension)
SELECT v.memory_id AS id, v.embedding
  FROM memory_vectors v
 WHERE v.memory_id IN (SELECT value FROM json_each(@ids))
   AND +v.owner_id = @ownerId
