-- insert-audit-event: append one sealed audit event.
-- params: @seq, @type, @at, @owner_id, @actor, @role, @memory_ids_json,
--         @content_hashes_json, @reason, @details_json, @prev_hash, @hash
INSERT INTO audit_events (
  seq, type, at, owner_id, actor, role, memory_ids_json, content_hashes_json,
  reason, details_json, prev_hash, hash
) VALUES (
  @seq, @type, @at, @owner_id, @actor, @role, @memory_ids_json, @content_hashes_json,
  @reason, @details_json, @prev_hash, @hash
)
