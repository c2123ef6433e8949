// cascade-update-owner: the owner's memory counter after a cascade (the
// owner is already locked by cascade-lock-owner). The Owner node stays at
// zero: a writer may be waiting on its lock, and it holds only the id.
// params: $ownerId, $deleted
MATCH (o:Owner {id: $ownerId})
SET o.memoryCount = o.memoryCount - $deleted
