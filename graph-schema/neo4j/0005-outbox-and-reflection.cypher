// 0005-outbox-and-reflection: the job outbox, and reflection's bookkeeping.
// (:OutboxJob {id, name, ownerId, payload, recordedAt, seq}): jobs a write
// or a cascade triggers, created in the same transaction (DESIGN.md,
// "Modes"), read oldest first (seq) by the relay and deleted once the queue
// has them. The id constraint makes a job already pending one node (writers
// MERGE on it); seq comes from the single (:OutboxHead {id: 1}) counter,
// locked by each writer, so it only grows. Entries name memories by id only
// and hang off nothing: deleting a memory leaves its jobs alone.
// Memory.reflectedAt (reflection's marker, not part of the Memory record) is
// a property; the (ownerId, kind) index narrows the unreflected-episode scan
// to the owner's episodes. staleEmbeddings reads the owner's memories
// through memory_owner: "no model" is a missing property, which no range
// index can seek.
// Append-only: never edit this file once applied; add a new one instead.

CREATE CONSTRAINT outbox_job_id_unique IF NOT EXISTS
FOR (j:OutboxJob) REQUIRE j.id IS UNIQUE;

CREATE CONSTRAINT outbox_head_id_unique IF NOT EXISTS
FOR (h:OutboxHead) REQUIRE h.id IS UNIQUE;

CREATE INDEX outbox_job_seq IF NOT EXISTS
FOR (j:OutboxJob) ON (j.seq);

CREATE INDEX memory_owner_kind IF NOT EXISTS
FOR (m:Memory) ON (m.ownerId, m.kind);
