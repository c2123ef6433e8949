-- delete-orphan-entities: among candidate entities, delete those that no
-- memory is ABOUT and no relation edge uses as subject or object any more.
-- Driven from the candidates by primary key (the owner's other entities are
-- not visited); the two NOT EXISTS on relations are index lookups
-- (relations_subject, relations_object), where one OR would scan the table.
-- params: @ownerId    the owner
--         @entityIds  JSON array of entity row ids touched by the cascade
DELETE FROM entities
 WHERE id IN (SELECT value FROM json_each(@entityIds))
   AND +owner_id = @ownerId
   AND NOT EXISTS (SELECT 1 FROM memory_about a WHERE a.entity_id = entities.id)
   AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.subject_id = entities.id)
   AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.object_id = entities.id)
