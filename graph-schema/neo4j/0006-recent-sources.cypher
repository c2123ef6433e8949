// 0006-recent-sources: the owner's memories in write order, for
// recentSources (compaction's read: the newest live source memories). Write
// order is (createdMs, rid), rid being the insertion sequence within the
// owner, so the index is (ownerId, createdMs, rid): the query seeks the
// owner, reads the index backwards (index-provided order, no sort) and stops
// once it has $limit rows, whatever the owner's history.
// Append-only: never edit this file once applied; add a new one instead.

CREATE INDEX memory_owner_created_rid IF NOT EXISTS
FOR (m:Memory) ON (m.ownerId, m.createdMs, m.rid);
