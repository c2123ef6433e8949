-- search-vector: nearest neighbours of a vector within one owner's
-- partition, live memories only. The KNN itself skips expired and
-- not-yet-valid rows (vec0 metadata); supersession can change after the
-- vector is written, so it is checked against memories afterwards, which is
-- why the caller oversamples (@k > @limit).
-- params: @ownerId  partition key
--         @vector   Float32Array blob of the store's dimension
--         @k        neighbours to fetch before the supersession filter (<= 4096)
--         @nowMs    epoch ms of "now"
--         @limit    results to return
-- returns: id, distance (cosine distance, 0 = same direction)
WITH knn AS (
  SELECT memory_id, distance
    FROM memory_vec
   WHERE embedding MATCH @vector
     AND k = @k
     AND owner_id = @ownerId
     AND expires_ms > @nowMs
     AND valid_from_ms <= @nowMs
)
SELECT m.id, knn.distance
  FROM knn
  JOIN memories m ON m.id = knn.memory_id AND m.owner_id = @ownerId
 WHERE m.superseded_by IS NULL
   AND (m.valid_to_ms IS NULL OR m.valid_to_ms > @nowMs)
   AND m.expires_ms > @nowMs
   AND m.valid_from_ms <= @nowMs
 ORDER BY knn.distance, m.rid DESC
 LIMIT @limit
