// insert-outbox-jobs: record jobs in the outbox, in the caller's write
// transaction. The outbox head's write lock (held to the end of the
// transaction) serialises writers, so seq numbers, read from the head and
// moved past the batch, only grow. A job whose id is already pending MERGEs
// into the existing node, unchanged (same id, same work): not an error. An
// ignored job leaves a gap in seq, which orders entries and nothing more.
// params: $jobs        list of maps: id, name, ownerId, payload (JSON); ids distinct
//         $recordedAt  ISO time the write happened
MERGE (h:OutboxHead {id: 1})
  ON CREATE SET h.seq = 0
SET h._lock = true
REMOVE h._lock
WITH h, h.seq AS base
UNWIND range(0, size($jobs) - 1) AS i
WITH h, base, i, $jobs[i] AS j
MERGE (x:OutboxJob {id: j.id})
  ON CREATE SET x.name = j.name, x.ownerId = j.ownerId, x.payload = j.payload,
                x.recordedAt = $recordedAt, x.seq = base + i + 1
WITH h, base, count(*) AS written
SET h.seq = base + size($jobs)
