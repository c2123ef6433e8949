-- 0017-session-writers: who appended each session-buffer message, the
-- principal and the role of its credentials. The buffer hands a message
-- back in its role ("user", "assistant"...), and without its writer a tool's
-- output appended as a user message read as the user's own words. Messages
-- stored before this migration keep NULL in both: their writer is unknown,
-- and the prompt rendering marks them untrusted.
-- Append-only: never edit this file once applied; add a new one instead.

ALTER TABLE session_messages ADD COLUMN writer_principal TEXT;
ALTER TABLE session_messages ADD COLUMN writer_role TEXT;
