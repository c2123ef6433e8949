// insert-audit-events: append sealed audit events and move the chain head.
// Call only after audit-head-lock in the same transaction.
// params: $events  list of maps: seq, type, at, ownerId, actor, role,
//                  memoryIds (JSON), contentHashes (JSON), reason,
//                  details (JSON), prevHash, hash
//         $seq     the new head seq (the last event's)
//         $hash    the new head hash
UNWIND $events AS e
CREATE (:AuditEvent {
  seq: e.seq, type: e.type, at: e.at, ownerId: e.ownerId, actor: e.actor, role: e.role,
  memoryIds: e.memoryIds, contentHashes: e.contentHashes, reason: e.reason,
  details: e.details, prevHash: e.prevHash, hash: e.hash
})
WITH count(*) AS written
MATCH (h:AuditHead {id: 1})
SET h.seq = $seq, h.hash = $hash
