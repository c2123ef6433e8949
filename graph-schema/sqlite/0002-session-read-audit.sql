-- 0002-session-read-audit: the session buffer, the read log and the audit log.
-- The audit log is append-only and hash-chained (core/audit.ts); the
-- triggers refuse UPDATE and DELETE through SQL so that a bug cannot rewrite
-- history, and verifyAuditChain catches anyone who bypasses them.
-- Append-only: never edit this file once applied; add a new one instead.

-- Short-term memory: the last exchanges of one session of one owner.
CREATE TABLE session_messages (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_id   TEXT NOT NULL CHECK (length(trim(owner_id)) > 0),
  session_id TEXT NOT NULL,
  role       TEXT NOT NULL,
  text       TEXT NOT NULL,
  at         TEXT NOT NULL,
  at_ms      INTEGER NOT NULL,
  expires_at TEXT NOT NULL,
  expires_ms INTEGER NOT NULL,
  -- the long-term memory holding a copy; deleted with it by the cascade
  memory_id  TEXT
) STRICT;

CREATE INDEX session_messages_session ON session_messages (owner_id, session_id, seq);
CREATE INDEX session_messages_memory ON session_messages (memory_id) WHERE memory_id IS NOT NULL;

-- Which memories were served to whom: traces a poisoned memory to answers.
CREATE TABLE read_log (
  id              INTEGER PRIMARY KEY,
  owner_id        TEXT NOT NULL,
  request_id      TEXT NOT NULL,
  principal       TEXT NOT NULL,
  session_id      TEXT,
  memory_ids_json TEXT NOT NULL,
  at              TEXT NOT NULL
) STRICT;

CREATE INDEX read_log_owner ON read_log (owner_id, at);

CREATE TABLE audit_events (
  seq                 INTEGER PRIMARY KEY,
  type                TEXT NOT NULL,
  at                  TEXT NOT NULL,
  owner_id            TEXT,
  actor               TEXT NOT NULL,
  role                TEXT NOT NULL,
  memory_ids_json     TEXT NOT NULL,
  content_hashes_json TEXT NOT NULL,
  reason              TEXT,
  details_json        TEXT NOT NULL,
  prev_hash           TEXT NOT NULL,
  hash                TEXT NOT NULL UNIQUE
) STRICT;

CREATE INDEX audit_events_owner ON audit_events (owner_id, seq);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;

CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;
