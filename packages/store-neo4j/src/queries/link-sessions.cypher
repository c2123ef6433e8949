// link-sessions: OBSERVED_IN edges from memories to their (owner-scoped)
// Session nodes, carrying the turn.
// params: $links  list of maps: memoryId, ownerId, sessionId, turn (or null)
UNWIND $links AS l
MATCH (m:Memory {id: l.memoryId})
MERGE (s:Session {ownerId: l.ownerId, id: l.sessionId})
  ON CREATE SET s.nextSeq = 0
CREATE (m)-[r:OBSERVED_IN]->(s)
SET r.turn = l.turn
