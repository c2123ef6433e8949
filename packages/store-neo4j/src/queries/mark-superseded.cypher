// mark-superseded: close older versions (validTo, supersededBy) and add the
// SUPERSEDES edge from the newer version when it is a stored memory of the
// same owner. Owner-scoped: a mark naming another owner's or an unknown
// memory matches nothing and is ignored.
// params: $marks  list of maps: ownerId, id, by, at, atMs
UNWIND $marks AS s
MATCH (m:Memory {id: s.id})
  WHERE m.ownerId = s.ownerId
SET m.validTo = s.at, m.validToMs = s.atMs, m.supersededBy = s.by
WITH m, s
OPTIONAL MATCH (b:Memory {id: s.by})
  WHERE b.ownerId = s.ownerId AND b <> m
FOREACH (_ IN CASE WHEN b IS NULL THEN [] ELSE [1] END | MERGE (b)-[:SUPERSEDES]->(m))
