-- entity-hits (fragment): the CTEs `named` (the owner's entities with one of
-- the normalized names) and `hits` (ids of memories ABOUT such an entity, or
-- asserting a relation edge whose subject or object is one), for the two
-- entity plans, search-entities and search-entities-newest, to find the same
-- hits. Liveness is left to the statement that includes it.
-- params: @ownerId, @names (JSON array of normalized names)
WITH named AS (
  SELECT id FROM entities
   WHERE owner_id = @ownerId
     AND name_norm IN (SELECT value FROM json_each(@names))
),
hits AS (
  SELECT a.memory_id AS id FROM memory_about a WHERE a.entity_id IN (SELECT id FROM named)
  UNION
  SELECT ra.memory_id FROM relations r
    JOIN relation_assertions ra ON ra.relation_id = r.id
   WHERE r.owner_id = @ownerId
     AND (r.subject_id IN (SELECT id FROM named) OR r.object_id IN (SELECT id FROM named))
)
