// cascade-lock-owner: take the owner's write lock before computing the
// closure. Writers take the same lock first (lock-owners), so no memory can
// be derived from a root while the cascade that deletes it is running: the
// closure it computes is the closure it deletes.
// params: $ownerId  the owner
// returns: one row when the owner exists
MATCH (o:Owner {id: $ownerId})
SET o._lock = true
REMOVE o._lock
RETURN o.id AS ownerId
