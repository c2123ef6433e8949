// mark-reflected: set reflection's marker (reflectedAt, store bookkeeping,
// not part of the Memory record) on the named memories. Owner-scoped: ids
// of another owner or unknown ids match nothing and are ignored.
// params: $marks  list of maps: ownerId, ids (list of memory ids), at (ISO time)
UNWIND $marks AS r
UNWIND r.ids AS id
MATCH (m:Memory {id: id})
  WHERE m.ownerId = r.ownerId
SET m.reflectedAt = r.at
