-- 0007-api-keys: API keys, shared by every API process over this file.
-- key_hash is the hex SHA-256 of the whole key: the key itself is never
-- stored, so the file (and its WAL) authenticates nobody. owners_json is
-- "all" or a JSON array of owner ids. Revocation sets revoked_at; a row is
-- kept so lists and the audit log still name the key.
-- Append-only: never edit this file once applied; add a new one instead.

CREATE TABLE api_keys (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  role        TEXT NOT NULL,
  owners_json TEXT NOT NULL,
  key_hash    TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  created_by  TEXT NOT NULL,
  expires_at  TEXT,
  revoked_at  TEXT
) STRICT;
