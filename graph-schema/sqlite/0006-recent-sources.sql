-- 0006-recent-sources: the owner's memories in write order, for
-- recentSources (compaction's read: the newest live source memories). The
-- index is (owner_id, created_ms) and ends, as every SQLite index does, with
-- the rowid (rid, the insertion order), so it holds exactly the write order
-- (created_ms, rid): the query walks it backwards from the owner's newest
-- memory and stops once it has @limit rows, whatever the owner's history.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE INDEX memories_owner_created ON memories (owner_id, created_ms);
