// insert-session-messages: append messages to their sessions and move each
// session's counter. Call after lock-sessions in the same transaction.
// A message's writer (writerPrincipal, writerRole) is who appended it;
// messages stored before writers were recorded have neither property.
// params: $messages  list of maps: ownerId, sessionId, seq, role, text, at,
//                    atMs, expiresAt, expiresMs, memoryId (or null),
//                    writerPrincipal, writerRole (or null)
//         $sessions  list of maps: ownerId, sessionId, nextSeq
UNWIND $messages AS x
MATCH (s:Session {ownerId: x.ownerId, id: x.sessionId})
CREATE (:SessionMessage {
  ownerId: x.ownerId, sessionId: x.sessionId, seq: x.seq, role: x.role, text: x.text,
  at: x.at, atMs: x.atMs, expiresAt: x.expiresAt, expiresMs: x.expiresMs, memoryId: x.memoryId,
  writerPrincipal: x.writerPrincipal, writerRole: x.writerRole
})-[:IN_SESSION]->(s)
WITH count(*) AS written
UNWIND $sessions AS y
MATCH (s:Session {ownerId: y.ownerId, id: y.sessionId})
SET s.nextSeq = y.nextSeq
