// cascade-orphans: among the candidates, delete the entities no memory is
// ABOUT and no relation edge uses, the sources no memory comes FROM, and the
// owner's sessions with neither memories OBSERVED_IN them nor messages.
// Each candidate is write-locked before it is checked: a Source is shared
// between owners, and another owner's writer may be linking to it right now;
// once its lock is ours, the check sees that writer's committed edge and the
// source stays (an unlocked check would DETACH DELETE the new edge away).
// params: $ownerId, $candidates (element ids collected earlier in this tx)
// returns: entities, sources, sessions (how many of each went)
MATCH (n)
  WHERE elementId(n) IN $candidates
SET n._lock = true
REMOVE n._lock
WITH n
WITH n,
     CASE
       WHEN n:Entity THEN n.ownerId = $ownerId
                          AND NOT EXISTS { (n)<-[:ABOUT]-() } AND NOT EXISTS { (n)-[:RELATION]-() }
       WHEN n:Source THEN NOT EXISTS { (n)<-[:FROM_SOURCE]-() }
       WHEN n:Session THEN n.ownerId = $ownerId
                           AND NOT EXISTS { (n)<-[:OBSERVED_IN]-() } AND NOT EXISTS { (n)<-[:IN_SESSION]-() }
       ELSE false
     END AS orphan,
     CASE WHEN n:Entity THEN 'entity' WHEN n:Source THEN 'source' ELSE 'session' END AS what
WHERE orphan
DETACH DELETE n
RETURN sum(CASE WHEN what = 'entity' THEN 1 ELSE 0 END) AS entities,
       sum(CASE WHEN what = 'source' THEN 1 ELSE 0 END) AS sources,
       sum(CASE WHEN what = 'session' THEN 1 ELSE 0 END) AS sessions
