// update-owners: move the locked owners' counters after a write.
// params: $owners  list of maps: ownerId, nextRid, added (memories written)
UNWIND $owners AS w
MATCH (o:Owner {id: w.ownerId})
SET o.nextRid = w.nextRid, o.memoryCount = o.memoryCount + w.added
