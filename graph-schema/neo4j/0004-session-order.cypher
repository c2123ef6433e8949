// 0004-session-order: the next turn of a session. Recall brings in the turn
// written after a question turn (its reply); that lookup names the owner and
// the session and walks rid (insertion order within the owner) upwards, so
// the index leads with (ownerId, sessionId) and ends with rid.
// Append-only: never edit this file once applied; add a new one instead.

CREATE INDEX memory_owner_session_rid IF NOT EXISTS
FOR (m:Memory) ON (m.ownerId, m.sessionId, m.rid);
