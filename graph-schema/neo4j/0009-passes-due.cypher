// 0009-passes-due: (:PassDue {id, schedule, ownerId, token}), an owner a
// scheduled pass (reflect, compact) still has to visit. A memory write makes
// its owner due, with a fresh token, in the write's transaction (MERGE on
// id, the schedule and owner id joined by a NUL: Community has no node
// keys); a pass reads the due owners of its schedule in owner order, records
// their jobs and deletes their nodes in one transaction, each only if its
// token is still the one it read. Only due owners have a node, so a pass
// costs what was written since, not what the store holds. Owners that
// already have memories are made due once here (idempotent: MERGE), so the
// first pass after the upgrade visits each of them.
// Append-only: never edit this file once applied; add a new one instead.

CREATE CONSTRAINT pass_due_id_unique IF NOT EXISTS
FOR (p:PassDue) REQUIRE p.id IS UNIQUE;

CREATE INDEX pass_due_schedule_owner IF NOT EXISTS
FOR (p:PassDue) ON (p.schedule, p.ownerId);

CREATE INDEX pass_due_owner IF NOT EXISTS
FOR (p:PassDue) ON (p.ownerId);

MATCH (o:Owner) WHERE o.memoryCount > 0
UNWIND ['reflect', 'compact'] AS schedule
MERGE (p:PassDue {id: schedule + '\u0000' + o.id})
  ON CREATE SET p.schedule = schedule, p.ownerId = o.id, p.token = 'migrated';
