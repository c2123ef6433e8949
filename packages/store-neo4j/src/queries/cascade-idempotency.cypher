// cascade-idempotency: recorded answers to Idempotency-Key writes that name a
// deleted memory (the answer may hold its text) lose the answer and the ids;
// the record stays, so a repeat of the request still writes nothing.
// params: $ownerId, $ids (the closure)
// returns: forgotten
MATCH (r:IdempotencyRecord)
  WHERE r.ownerId = $ownerId AND any(x IN r.memoryIds WHERE x IN $ids)
SET r.forgotten = true, r.memoryIds = []
REMOVE r.response
RETURN count(*) AS forgotten
