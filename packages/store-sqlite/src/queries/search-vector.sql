-- search-vector: nearest neighbours of a vector among one owner's vectors,
-- live memories only: an exact scan of the owner's rows (through
-- memory_vectors_by_owner) scored by sqlite-vec's vec_distance_cosine. The
-- scan skips expired and not-yet-valid rows itself; supersession can change
-- after the vector is written, so it is checked against memories
-- afterwards, which is why the caller oversamples (@k > @limit). Owners
-- large enough for an in-memory index are not searched here.
-- params: @ownerId  the owner
--         @vector   Float32Array blob of the store's dimension
--         @k        neighbours to fetch before the supersession filter
--         @nowMs    epoch ms of "now"
--         @limit    results to return
-- returns: id, distance (cosine distance, 0 = same direction)
WITH knn AS (
  SELECT memory_id, vec_distance_cosine(embedding, @vector) AS distance
    FROM memory_vectors
   WHERE owner_id = @ownerId
     AND expires_ms > @nowMs
     AND valid_from_ms <= @nowMs
   ORDER BY distance
   LIMIT @k
)
SELECT m.id, knn.distance
  FROM knn
  JOIN memories m ON m.id = knn.memory_id AND m.owner_id = @ownerId
 WHERE @include live
 ORDER BY knn.distance, m.rid DESC
 LIMIT @limit
