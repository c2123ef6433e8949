-- 0008-idempotency: the first answer to a write sent with an Idempotency-Key,
-- for 24 hours. scope is the caller's principal; response_json is null while
-- the first request runs. The answer may hold memory text, so the cascade
-- of a memory it names (memory_ids_json) clears the answer and the ids and
-- sets forgotten (the row stays: a repeat still writes nothing); the owner's
-- rows go with the owner, and every row once expired. request_hash is keyed
-- (the installation's audit secret), as the request held memory text.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE TABLE idempotency (
  scope           TEXT NOT NULL,
  key             TEXT NOT NULL,
  owner_id        TEXT,
  request_hash    TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  response_json   TEXT,
  memory_ids_json TEXT NOT NULL DEFAULT '[]',
  forgotten       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, key)
) STRICT;

CREATE INDEX idempotency_owner ON idempotency (owner_id);
CREATE INDEX idempotency_expires ON idempotency (expires_at);
