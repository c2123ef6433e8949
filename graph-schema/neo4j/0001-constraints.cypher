// 0001-constraints: uniqueness constraints of the Neo4j graph (DESIGN.md,
// "Graph schema"). Each constraint also creates the range index that backs
// it, so lookups by these keys are index seeks.
// Memory ids are unique across owners (as in the SQLite store), so a
// duplicate id fails the write with `conflict` whoever owns the first one.
// Entity, Session and Source keys are composite uniqueness constraints
// (available in Community; node-key constraints are Enterprise-only): MERGE
// on the full key takes the index lock, so two writers cannot create twins.
// Append-only: never edit this file once applied; add 0004-... instead.
// Statements are separated by lines ending in ';'.

CREATE CONSTRAINT memory_id_unique IF NOT EXISTS
FOR (m:Memory) REQUIRE m.id IS UNIQUE;

CREATE CONSTRAINT owner_id_unique IF NOT EXISTS
FOR (o:Owner) REQUIRE o.id IS UNIQUE;

CREATE CONSTRAINT audit_event_seq_unique IF NOT EXISTS
FOR (e:AuditEvent) REQUIRE e.seq IS UNIQUE;

CREATE CONSTRAINT audit_head_id_unique IF NOT EXISTS
FOR (h:AuditHead) REQUIRE h.id IS UNIQUE;

CREATE CONSTRAINT source_key_unique IF NOT EXISTS
FOR (s:Source) REQUIRE (s.kind, s.uri) IS UNIQUE;

CREATE CONSTRAINT entity_key_unique IF NOT EXISTS
FOR (e:Entity) REQUIRE (e.ownerId, e.normName, e.type) IS UNIQUE;

CREATE CONSTRAINT session_key_unique IF NOT EXISTS
FOR (s:Session) REQUIRE (s.ownerId, s.id) IS UNIQUE;

CREATE CONSTRAINT meta_key_unique IF NOT EXISTS
FOR (k:KeepGraphMeta) REQUIRE k.key IS UNIQUE;
