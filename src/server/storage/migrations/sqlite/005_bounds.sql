-- Issue 31. Sessions end with the API key that asked for their connect code;
-- delivery faults live in the store, so every node on one database applies them.
ALTER TABLE connect_codes ADD COLUMN key_hash TEXT;
ALTER TABLE sessions ADD COLUMN parent_key_hash TEXT;
CREATE INDEX sessions_by_parent_key ON sessions(parent_key_hash);
-- A session made before this migration may descend from another session (sessions
-- could ask for connect codes): none can be traced to its key, so all end now.
UPDATE sessions SET revoked = 1 WHERE parent_key_hash IS NULL;

CREATE TABLE delivery_faults (
  inbox_id        TEXT PRIMARY KEY REFERENCES inboxes(id) ON DELETE CASCADE,
  code            INTEGER,
  enhanced_status TEXT,
  message         TEXT,
  remaining       INTEGER,
  delay_ms        INTEGER NOT NULL,
  created_at      INTEGER NOT NULL
);

-- The client address that created an inbox: the cap of active guest inboxes per address counts it.
ALTER TABLE inboxes ADD COLUMN creator_address TEXT;
CREATE INDEX inboxes_by_creator ON inboxes (creator_address, expires_at);
