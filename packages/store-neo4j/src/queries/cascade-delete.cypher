// cascade-delete: delete the closure and everything hanging off it, in one
// statement (each step below is a subquery, run in this order; every
// aggregate returns one row, so no step can stop the ones after it):
//  1. the entities, sources and sessions the closure points at, collected
//     before the memories go; at the end each is deleted if nothing else
//     holds on to it;
//  2. relation edges: the closure's assertions are dropped (assertedBy and
//     the parallel reasons list) and edges no surviving memory asserts are
//     deleted; each edge is write-locked before it is read;
//  3. session-buffer copies of the closure's memories, linked by memoryId
//     or (appended apart from the write) holding the same text;
//  4. survivors that pointed at a deleted version lose the dangling id but
//     keep their validity window (a superseded claim never comes back by
//     deletion), found through SUPERSEDES edges;
//  5. the closure's Memory nodes with all their edges; their vector and
//     full-text index entries go with the nodes, in this transaction;
//  6. recorded answers to Idempotency-Key writes naming a deleted memory
//     lose the answer and the ids (the record stays, so a repeat of the
//     request still writes nothing);
//  7. orphans among the candidates of 1-3: entities no memory is ABOUT and
//     no relation edge uses, sources no memory comes FROM, the owner's
//     sessions with neither memories OBSERVED_IN them nor messages. Each is
//     write-locked before it is checked: a Source is shared between owners,
//     and another owner's writer may be linking to it right now; once its
//     lock is ours, the check sees that writer's committed edge and the
//     source stays (an unlocked check would DETACH DELETE the new edge);
//  8. the owner's memory counter (the owner was locked by
//     cascade-lock-owner). The Owner node stays at zero: a writer may be
//     waiting on its lock, and it holds only the id.
// Memories are found by id with a seek the planner must use (USING INDEX
// SEEK): on a young database the indexes' statistics lag, every index looks
// empty and free to scan, and a plan starting from the owner's memories (or
// from every memory) stays cached until the next replan.
// params: $ownerId, $ids (the closure), $copies (element ids of same-text
//         messages), $deleted (the closure's size)
// returns: relationEdges, entities, sessionMessages (how many of each went:
//          the receipt's counts; orphaned sources and sessions go uncounted)
CALL () {
  MATCH (m:Memory)
    USING INDEX SEEK m:Memory(id)
    WHERE m.id IN $ids AND m.ownerId = $ownerId
  MATCH (m)-[:ABOUT|FROM_SOURCE|OBSERVED_IN]->(n)
  RETURN collect(DISTINCT elementId(n)) AS neighbours
}
CALL () {
  MATCH (s:Entity)-[r:RELATION]->(o:Entity)
    WHERE r.ownerId = $ownerId AND any(x IN r.assertedBy WHERE x IN $ids)
  SET r._lock = true
  REMOVE r._lock
  WITH s, r, o
  WITH s, r, o,
       [i IN range(0, size(r.assertedBy) - 1) WHERE NOT r.assertedBy[i] IN $ids | coalesce(r.reasons[i], '')] AS reasons,
       [x IN r.assertedBy WHERE NOT x IN $ids] AS asserted
  SET r.reasons = reasons, r.assertedBy = asserted
  WITH s, r, o, size(asserted) = 0 AS orphan
  FOREACH (_ IN CASE WHEN orphan THEN [1] ELSE [] END | DELETE r)
  RETURN sum(CASE WHEN orphan THEN 1 ELSE 0 END) AS relationEdges,
         collect(DISTINCT elementId(s)) + collect(DISTINCT elementId(o)) AS ends
}
CALL () {
  MATCH (x:SessionMessage)
    WHERE x.ownerId = $ownerId AND (x.memoryId IN $ids OR elementId(x) IN $copies)
  OPTIONAL MATCH (x)-[:IN_SESSION]->(s:Session)
  WITH x, elementId(s) AS session
  DETACH DELETE x
  RETURN count(*) AS sessionMessages, collect(DISTINCT session) AS sessions
}
CALL () {
  MATCH (n:Memory)-[:SUPERSEDES]->(old:Memory)
    USING INDEX SEEK n:Memory(id)
    WHERE n.id IN $ids AND n.ownerId = $ownerId
      AND old.supersededBy IN $ids AND NOT old.id IN $ids
  SET old.supersededBy = null
}
CALL () {
  MATCH (n:Memory)-[:SUPERSEDES]->(old:Memory)
    USING INDEX SEEK old:Memory(id)
    WHERE old.id IN $ids AND old.ownerId = $ownerId
      AND n.supersedes IN $ids AND NOT n.id IN $ids
  SET n.supersedes = null
}
CALL () {
  MATCH (m:Memory)
    USING INDEX SEEK m:Memory(id)
    WHERE m.id IN $ids AND m.ownerId = $ownerId
  DETACH DELETE m
}
CALL () {
  MATCH (r:IdempotencyRecord)
    WHERE r.ownerId = $ownerId AND any(x IN r.memoryIds WHERE x IN $ids)
  SET r.forgotten = true, r.memoryIds = []
  REMOVE r.response
}
CALL (neighbours, ends, sessions) {
  UNWIND neighbours + ends + sessions AS candidate
  WITH DISTINCT candidate
  MATCH (n)
    WHERE elementId(n) = candidate
  SET n._lock = true
  REMOVE n._lock
  WITH n,
       CASE
         WHEN n:Entity THEN n.ownerId = $ownerId
                            AND NOT EXISTS { (n)<-[:ABOUT]-() } AND NOT EXISTS { (n)-[:RELATION]-() }
         WHEN n:Source THEN NOT EXISTS { (n)<-[:FROM_SOURCE]-() }
         WHEN n:Session THEN n.ownerId = $ownerId
                             AND NOT EXISTS { (n)<-[:OBSERVED_IN]-() } AND NOT EXISTS { (n)<-[:IN_SESSION]-() }
         ELSE false
       END AS orphan,
       n:Entity AS entity
  WHERE orphan
  DETACH DELETE n
  RETURN sum(CASE WHEN entity THEN 1 ELSE 0 END) AS entities
}
CALL () {
  MATCH (o:Owner {id: $ownerId})
  SET o.memoryCount = o.memoryCount - $deleted
}
RETURN relationEdges, entities, sessionMessages
