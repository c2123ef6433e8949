-- 0012-relations-by-subject: an index on relations.subject_id. Without it,
-- deleting an entity scanned the whole relations table twice (the foreign
-- key check of relations.subject_id, and the orphan test's "no relation
-- uses it as subject"), about 110-150 ms per cascade at a few thousand
-- relations; with it, both are index lookups.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE INDEX relations_subject ON relations (subject_id);
