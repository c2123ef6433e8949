// lock-sessions: find or create the Session nodes messages are appended to,
// take their write locks and read their message counters (seq order).
// params: $sessions  list of maps: ownerId, sessionId (sorted)
// returns: ownerId, sessionId, nextSeq
UNWIND $sessions AS x
MERGE (s:Session {ownerId: x.ownerId, id: x.sessionId})
  ON CREATE SET s.nextSeq = 0
SET s._lock = true
REMOVE s._lock
WITH s
RETURN s.ownerId AS ownerId, s.id AS sessionId, coalesce(s.nextSeq, 0) AS nextSeq
