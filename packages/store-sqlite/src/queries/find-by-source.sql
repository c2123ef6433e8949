-- find-by-source: ids of one owner's memories whose own origin or inherited
-- origins (sourceOrigins) name a source uri or a tool.
-- params: @ownerId  the owner
--         @uri      a document/URL uri, or NULL
--         @tool     a tool name, or NULL (tools are sources of kind 'tool')
-- returns: id (one column), sorted
SELECT DISTINCT ms.memory_id AS id
  FROM memory_sources ms
  JOIN sources s ON s.id = ms.source_id
 WHERE ms.owner_id = @ownerId
   AND (
        (@uri IS NOT NULL AND s.uri = @uri)
     OR (@tool IS NOT NULL AND s.kind = 'tool' AND s.uri = @tool)
   )
 ORDER BY ms.memory_id
