-- 0005-outbox-and-reflection: the job outbox, and reflection's bookkeeping.
-- outbox: jobs a write or a cascade triggers, inserted in the same
-- transaction (DESIGN.md, "Modes"), so a queue outage loses none; a relay
-- reads them oldest first (seq) and deletes them once the queue has them.
-- seq is AUTOINCREMENT so it never goes back, even after the newest entries
-- are acknowledged; job_id is UNIQUE so a job already pending is recorded
-- once (the writers insert with ON CONFLICT DO NOTHING). Entries name
-- memories by id only, and are not tied to them: deleting a memory leaves
-- its jobs, which find out for themselves that it is gone.
-- memories.reflected_at: when reflection last consumed this episode; store
-- bookkeeping, not part of the Memory record. The partial index holds only
-- the episodes still waiting, so finding and counting them stays cheap
-- however many have been reflected.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE TABLE outbox (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id       TEXT NOT NULL UNIQUE,
  name         TEXT NOT NULL,
  owner_id     TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  recorded_at  TEXT NOT NULL
) STRICT;

ALTER TABLE memories ADD COLUMN reflected_at TEXT;

CREATE INDEX memories_owner_unreflected ON memories (owner_id, created_ms)
  WHERE kind = 'episode' AND reflected_at IS NULL;

-- staleEmbeddings: the owner's memories by model, oldest first.
CREATE INDEX memories_owner_model ON memories (owner_id, embedding_model, created_ms);
