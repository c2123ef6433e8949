// link-supersedes: SUPERSEDES edges for new memories whose `supersedes`
// names a stored memory of the same owner.
// params: $links  list of maps: newId, oldId
UNWIND $links AS l
MATCH (n:Memory {id: l.newId})
MATCH (old:Memory {id: l.oldId})
  WHERE old.ownerId = n.ownerId AND old <> n
MERGE (n)-[:SUPERSEDES]->(old)
