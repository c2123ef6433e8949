-- 0009-passes-due: the owners each scheduled pass (reflect, compact) still
-- has to visit. A memory write makes its owner due, with a fresh token, in
-- the write's transaction; a pass reads the due owners of its schedule in
-- owner order, records their jobs and deletes their rows in one
-- transaction, each only if its token is still the one it read (a write
-- racing the pass makes the owner due again). Only due owners have a row,
-- so a pass costs what was written since, not what the store holds.
-- Owners that already have memories are made due once here, so the first
-- pass after the upgrade visits each of them.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE TABLE passes_due (
  schedule TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  token    TEXT NOT NULL,
  PRIMARY KEY (schedule, owner_id)
) STRICT, WITHOUT ROWID;

INSERT INTO passes_due (schedule, owner_id, token)
  SELECT s.schedule, o.owner_id, 'migrated'
    FROM (SELECT DISTINCT owner_id FROM memories) AS o,
         (SELECT 'reflect' AS schedule UNION ALL SELECT 'compact') AS s;
