// cascade-session-messages: session-buffer copies of the closure's memories.
// params: $ownerId, $ids (the closure)
// returns: deleted, sessions (element ids of their Session nodes)
MATCH (x:SessionMessage)
  WHERE x.memoryId IN $ids AND x.ownerId = $ownerId
OPTIONAL MATCH (x)-[:IN_SESSION]->(s:Session)
WITH x, elementId(s) AS session
DETACH DELETE x
RETURN count(*) AS deleted, collect(DISTINCT session) AS sessions
