-- 0013-cascade-lookups: indexes so that deleting memories visits the
-- deleted rows, not every row of their owner. Without them, each deleted
-- memory's foreign-key cascade into derived_from (keyed by owner and child)
-- walked the owner's derived_from entries, and clearing supersession
-- pointers to the deleted ids scanned the owner's memories: a cascade of
-- 1,000 in an owner of 100k took seconds. The two pointer indexes are
-- partial: only superseded or superseding memories carry a pointer.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE INDEX derived_from_child ON derived_from (owner_id, child_id);

CREATE INDEX memories_superseded_by ON memories (owner_id, superseded_by)
  WHERE superseded_by IS NOT NULL;

CREATE INDEX memories_supersedes ON memories (owner_id, supersedes)
  WHERE supersedes IS NOT NULL;
