// cascade-session-messages: session-buffer copies of the closure's memories:
// linked by memoryId, or (appended apart from the write) holding the same text.
// params: $ownerId, $ids (the closure), $copies (element ids of same-text messages)
// returns: deleted, sessions (element ids of their Session nodes)
MATCH (x:SessionMessage)
  WHERE x.ownerId = $ownerId AND (x.memoryId IN $ids OR elementId(x) IN $copies)
OPTIONAL MATCH (x)-[:IN_SESSION]->(s:Session)
WITH x, elementId(s) AS session
DETACH DELETE x
RETURN count(*) AS deleted, collect(DISTINCT session) AS sessions
