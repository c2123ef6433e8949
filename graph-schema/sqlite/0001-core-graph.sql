-- 0001-core-graph: the embedded store's graph as tables.
-- Memory nodes, their structural edges (DERIVED_FROM, ABOUT, FROM_SOURCE),
-- entities and their relation edges with the memories that assert them.
-- OWNED_BY is the owner_id column; OBSERVED_IN is session_id/turn on the
-- memory; SUPERSEDES is memories.supersedes (and superseded_by back).
-- Times are stored twice: the ISO text handed back to callers, and epoch
-- milliseconds (*_ms) so comparisons do not depend on the text's offset.
-- Append-only: never edit this file once applied; add 0002-... instead.

-- Small facts about the database itself (e.g. the vector dimension).
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE memories (
  -- rowid shared with the full-text index (memory_fts.rowid).
  rid                 INTEGER PRIMARY KEY,
  id                  TEXT NOT NULL UNIQUE,
  owner_id            TEXT NOT NULL CHECK (length(trim(owner_id)) > 0),
  kind                TEXT NOT NULL,
  text                TEXT NOT NULL,
  key                 TEXT,
  origin_json         TEXT NOT NULL,
  source_origins_json TEXT NOT NULL,
  authority           TEXT NOT NULL,
  authority_rank      INTEGER NOT NULL,
  created_at          TEXT NOT NULL,
  created_ms          INTEGER NOT NULL,
  valid_from          TEXT NOT NULL,
  valid_from_ms       INTEGER NOT NULL,
  valid_to            TEXT,
  valid_to_ms         INTEGER,
  expires_at          TEXT NOT NULL,
  expires_ms          INTEGER NOT NULL,
  sensitivity         TEXT NOT NULL,
  tags_json           TEXT NOT NULL,
  confidence          REAL NOT NULL,
  content_hash        TEXT NOT NULL,
  -- the source ids in the caller's order; the edges live in derived_from
  derived_from_json   TEXT NOT NULL,
  supersedes          TEXT,
  superseded_by       TEXT,
  conflict            INTEGER NOT NULL DEFAULT 0,
  about_json          TEXT NOT NULL,
  relations_json      TEXT NOT NULL,
  embedding_model     TEXT,
  redactions_json     TEXT NOT NULL,
  -- OBSERVED_IN: the session node is implicit in (owner_id, session_id)
  session_id          TEXT,
  turn                TEXT,
  -- lets edge tables reference (owner, id) so no edge can cross owners
  UNIQUE (owner_id, id)
) STRICT;

CREATE INDEX memories_owner_key ON memories (owner_id, key, created_ms);
CREATE INDEX memories_owner_hash ON memories (owner_id, content_hash);
CREATE INDEX memories_owner_session ON memories (owner_id, session_id);
CREATE INDEX memories_expires ON memories (expires_ms);
CREATE INDEX memories_owner_value ON memories (owner_id, confidence, authority_rank, created_ms);

-- DERIVED_FROM: child -> source, both of the same owner.
CREATE TABLE derived_from (
  owner_id  TEXT NOT NULL,
  child_id  TEXT NOT NULL,
  source_id TEXT NOT NULL,
  PRIMARY KEY (child_id, source_id),
  FOREIGN KEY (owner_id, child_id) REFERENCES memories (owner_id, id) ON DELETE CASCADE,
  FOREIGN KEY (owner_id, source_id) REFERENCES memories (owner_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE INDEX derived_from_source ON derived_from (owner_id, source_id);

-- Entity nodes, one per (owner, normalized name, type).
CREATE TABLE entities (
  id        INTEGER PRIMARY KEY,
  owner_id  TEXT NOT NULL,
  name_norm TEXT NOT NULL,
  name      TEXT NOT NULL,
  type      TEXT NOT NULL,
  UNIQUE (owner_id, name_norm, type)
) STRICT;

-- ABOUT: memory -> entity.
CREATE TABLE memory_about (
  owner_id  TEXT NOT NULL,
  memory_id TEXT NOT NULL,
  entity_id INTEGER NOT NULL REFERENCES entities (id),
  PRIMARY KEY (memory_id, entity_id),
  FOREIGN KEY (owner_id, memory_id) REFERENCES memories (owner_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE INDEX memory_about_entity ON memory_about (entity_id);

-- Relation edges between entities (PREFERS_AGAINST, ...).
CREATE TABLE relations (
  id         INTEGER PRIMARY KEY,
  owner_id   TEXT NOT NULL,
  subject_id INTEGER NOT NULL REFERENCES entities (id),
  type       TEXT NOT NULL,
  object_id  INTEGER NOT NULL REFERENCES entities (id),
  UNIQUE (owner_id, subject_id, type, object_id)
) STRICT;

CREATE INDEX relations_object ON relations (object_id);

-- Which memories assert a relation edge, and why. An edge with no row here
-- is deleted by the cascade.
CREATE TABLE relation_assertions (
  relation_id INTEGER NOT NULL REFERENCES relations (id) ON DELETE CASCADE,
  owner_id    TEXT NOT NULL,
  memory_id   TEXT NOT NULL,
  reason      TEXT,
  PRIMARY KEY (relation_id, memory_id),
  FOREIGN KEY (owner_id, memory_id) REFERENCES memories (owner_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE INDEX relation_assertions_memory ON relation_assertions (memory_id);

-- Source nodes: documents, URLs and tools (kind 'tool', uri = tool name).
CREATE TABLE sources (
  id   INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  uri  TEXT NOT NULL,
  UNIQUE (kind, uri)
) STRICT;

CREATE INDEX sources_uri ON sources (uri);

-- FROM_SOURCE: memory -> source; inherited = 1 when the source is named by
-- one of the memory's sourceOrigins rather than its own origin.
CREATE TABLE memory_sources (
  owner_id  TEXT NOT NULL,
  memory_id TEXT NOT NULL,
  source_id INTEGER NOT NULL REFERENCES sources (id),
  inherited INTEGER NOT NULL,
  PRIMARY KEY (memory_id, source_id, inherited),
  FOREIGN KEY (owner_id, memory_id) REFERENCES memories (owner_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE INDEX memory_sources_source ON memory_sources (source_id);
