// link-sources: FROM_SOURCE edges to Source nodes (documents, URLs, and
// tools as kind 'tool'); inherited = true when the source is named by one
// of the memory's sourceOrigins rather than its own origin.
// params: $links  list of maps: memoryId, kind, uri, inherited
UNWIND $links AS l
MATCH (m:Memory {id: l.memoryId})
MERGE (s:Source {kind: l.kind, uri: l.uri})
MERGE (m)-[:FROM_SOURCE {inherited: l.inherited}]->(s)
