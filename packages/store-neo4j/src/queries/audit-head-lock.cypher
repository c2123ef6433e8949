// audit-head-lock: take the write lock on the audit chain's head and read it.
// The single (:AuditHead {id: 1}) node serialises appenders: whoever holds
// its write lock (until their transaction ends) owns the tail of the chain.
// The lock is taken by a write (SET _lock) *before* the properties are read,
// the documented way to avoid lost updates under read-committed isolation.
// params: $genesis  the hash before the first event (core GENESIS_HASH)
// returns: seq (last sealed seq, 0 when empty), hash (its hash)
MERGE (h:AuditHead {id: 1})
  ON CREATE SET h.seq = 0, h.hash = $genesis
SET h._lock = true
REMOVE h._lock
WITH h
RETURN h.seq AS seq, h.hash AS hash
