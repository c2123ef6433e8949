// 0007-api-keys: (:ApiKey {id, name, role, owners, keyHash, createdAt,
// createdBy, expiresAt, revokedAt}), shared by every API process over this
// database. keyHash is the hex SHA-256 of the whole key: the key itself is
// never stored. owners is "all" or a JSON array of owner ids. Revocation
// sets revokedAt; the node stays so lists and the audit log still name it.
// Append-only: never edit this file once applied; add a new one instead.

CREATE CONSTRAINT api_key_id_unique IF NOT EXISTS
FOR (k:ApiKey) REQUIRE k.id IS UNIQUE;
