// lock-owners: find or create the batch's Owner nodes and take their write
// locks (held to the end of the transaction), then read their counters.
// The lock serialises one owner's writers, so the per-owner memory count
// and the insertion sequence (rid) stay exact. Pass owners sorted, so two
// transactions always lock in the same order.
// params: $owners  list of owner ids, sorted
// returns: ownerId, nextRid (next free insertion sequence number)
UNWIND $owners AS ownerId
MERGE (o:Owner {id: ownerId})
  ON CREATE SET o.memoryCount = 0, o.nextRid = 0
SET o._lock = true
REMOVE o._lock
WITH o
RETURN o.id AS ownerId, o.nextRid AS nextRid
