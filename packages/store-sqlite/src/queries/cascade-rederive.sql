-- cascade-rederive: closure members (other than the roots the caller chose
-- to delete) that also have sources outside the closure. Those sources
-- survive, so a job can rebuild the derived memory from them alone.
-- params: @ownerId  the owner
--         @closure  JSON array of every memory id the cascade deletes
--         @rootIds  JSON array of the requested roots
--         @outside  JSON array of ids that do not survive either (the rest
--                   of a wider cascade run in steps; else the closure)
-- returns: id, kind and tags_json (the deleted derived memory's: what to rebuild),
--          surviving_json (JSON array of surviving source ids)
SELECT d.child_id AS id,
       (SELECT m.kind FROM memories m WHERE m.id = d.child_id) AS kind,
       (SELECT m.tags_json FROM memories m WHERE m.id = d.child_id) AS tags_json,
       json_group_array(d.source_id) AS surviving_json
  FROM json_each(@closure) j
  CROSS JOIN derived_from d ON d.child_id = j.value
-- "+" keeps the owner index out: edges are looked up by child id, not found
-- by walking all of the owner's edges once per closure member.
 WHERE +d.owner_id = @ownerId
   AND d.child_id NOT IN (SELECT value FROM json_each(@rootIds))
   AND d.source_id NOT IN (SELECT value FROM json_each(@closure))
   AND d.source_id NOT IN (SELECT value FROM json_each(@outside))
 GROUP BY d.child_id
 ORDER BY d.child_id
