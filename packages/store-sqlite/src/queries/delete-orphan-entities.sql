-- delete-orphan-entities: among candidate entities, delete those that no
-- memory is ABOUT and no relation edge uses as subject or object any more.
-- params: @ownerId    the owner
--         @entityIds  JSON array of entity row ids touched by the cascade
DELETE FROM entities
 WHERE owner_id = @ownerId
   AND id IN (SELECT value FROM json_each(@entityIds))
   AND NOT EXISTS (SELECT 1 FROM memory_about a WHERE a.entity_id = entities.id)
   AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.subject_id = entities.id OR r.object_id = entities.id)
