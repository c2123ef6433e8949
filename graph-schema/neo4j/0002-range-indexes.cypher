// 0002-range-indexes: owner-scoped lookups. Every read of the store names
// one owner, so the composite indexes lead with ownerId: a small owner's
// query touches only its own entries, however big the database grows.
// Memory(expiresMs) serves the sweeper, which scans across owners.
// RELATION(ownerId) is a relationship property index: the cascade finds the
// relation edges a deleted memory asserts by owner, then by assertedBy.
// Append-only: never edit this file once applied; add a new one instead.

CREATE INDEX memory_owner IF NOT EXISTS
FOR (m:Memory) ON (m.ownerId);

CREATE INDEX memory_owner_key IF NOT EXISTS
FOR (m:Memory) ON (m.ownerId, m.key);

CREATE INDEX memory_owner_hash IF NOT EXISTS
FOR (m:Memory) ON (m.ownerId, m.contentHash);

CREATE INDEX memory_owner_expires IF NOT EXISTS
FOR (m:Memory) ON (m.ownerId, m.expiresMs);

CREATE INDEX memory_expires IF NOT EXISTS
FOR (m:Memory) ON (m.expiresMs);

CREATE INDEX entity_owner_name IF NOT EXISTS
FOR (e:Entity) ON (e.ownerId, e.normName);

CREATE INDEX source_uri IF NOT EXISTS
FOR (s:Source) ON (s.uri);

CREATE INDEX session_message_session IF NOT EXISTS
FOR (x:SessionMessage) ON (x.ownerId, x.sessionId);

CREATE INDEX session_message_memory IF NOT EXISTS
FOR (x:SessionMessage) ON (x.memoryId);

CREATE INDEX read_log_owner IF NOT EXISTS
FOR (r:ReadLog) ON (r.ownerId);

CREATE INDEX audit_event_owner IF NOT EXISTS
FOR (e:AuditEvent) ON (e.ownerId);

CREATE INDEX relation_owner IF NOT EXISTS
FOR ()-[r:RELATION]-() ON (r.ownerId);
