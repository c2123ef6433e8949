// 0008-idempotency: (:IdempotencyRecord {id, scope, key, ownerId,
// requestHash, createdAt, expiresAt, response, memoryIds}), the first answer
// to a write sent with an Idempotency-Key, for 24 hours. id is scope and key
// joined by a NUL (one unique property: Community has no node keys).
// response is JSON, absent while the first request runs. The answer may hold
// memory text, so the cascade of a memory it names (memoryIds) removes the
// answer and the ids and sets forgotten (the node stays: a repeat still
// writes nothing); the owner's nodes go with the owner, every node once
// expired. requestHash is keyed, as the request held memory text.
// Append-only: never edit this file once applied; add a new one instead.

CREATE CONSTRAINT idempotency_id_unique IF NOT EXISTS
FOR (r:IdempotencyRecord) REQUIRE r.id IS UNIQUE;

CREATE INDEX idempotency_owner IF NOT EXISTS
FOR (r:IdempotencyRecord) ON (r.ownerId);

CREATE INDEX idempotency_expires IF NOT EXISTS
FOR (r:IdempotencyRecord) ON (r.expiresAt);
