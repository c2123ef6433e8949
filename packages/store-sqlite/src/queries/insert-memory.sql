-- insert-memory: one Memory node; RETURNING the rowid shared with memory_fts_terms.
-- params: every column of memories except rid, by name (see MemoryParams in
--         row-mapping.ts): @id, @owner_id, @kind, @text, @key, ...
INSERT INTO memories (
  id, owner_id, kind, text, key, origin_json, source_origins_json,
  authority, authority_rank, created_at, created_ms, valid_from, valid_from_ms,
  valid_to, valid_to_ms, expires_at, expires_ms, sensitivity, tags_json,
  confidence, content_hash, derived_from_json, supersedes, superseded_by,
  conflict, about_json, relations_json, embedding_model, redactions_json,
  session_id, turn
) VALUES (
  @id, @owner_id, @kind, @text, @key, @origin_json, @source_origins_json,
  @authority, @authority_rank, @created_at, @created_ms, @valid_from, @valid_from_ms,
  @valid_to, @valid_to_ms, @expires_at, @expires_ms, @sensitivity, @tags_json,
  @confidence, @content_hash, @derived_from_json, @supersedes, @superseded_by,
  @conflict, @about_json, @relations_json, @embedding_model, @redactions_json,
  @session_id, @turn
)
RETURNING rid
