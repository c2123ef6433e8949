-- list-relations: one owner's relation edges with their subject and object
-- entities, the reasons given and the memories asserting each edge.
-- params: @ownerId    the owner
--         @memoryIds  JSON array of memory ids, or NULL for every edge
-- returns: owner_id, subject_name, subject_type, type, object_name,
--          object_type, reasons_json, asserted_json (JSON arrays)
SELECT r.owner_id,
       s.name AS subject_name,
       s.type AS subject_type,
       r.type,
       o.name AS object_name,
       o.type AS object_type,
       json_group_array(DISTINCT a.reason) AS reasons_json,
       json_group_array(DISTINCT a.memory_id) AS asserted_json
  FROM relations r
  JOIN entities s ON s.id = r.subject_id
  JOIN entities o ON o.id = r.object_id
  JOIN relation_assertions a ON a.relation_id = r.id
 WHERE r.owner_id = @ownerId
   AND (
        @memoryIds IS NULL
     OR r.id IN (SELECT relation_id FROM relation_assertions
                  WHERE memory_id IN (SELECT value FROM json_each(@memoryIds)))
   )
 GROUP BY r.id
 ORDER BY s.name_norm, r.type, o.name_norm
