-- inboxkit local service: initial schema.
-- Times are epoch milliseconds. Secrets are stored only as SHA-256 hex hashes.

CREATE TABLE domains (
  id         TEXT PRIMARY KEY,
  domain     TEXT NOT NULL UNIQUE COLLATE NOCASE,
  is_default INTEGER NOT NULL DEFAULT 0,
  -- Domains removed from the configuration stay (their inboxes refer to them) but are inactive.
  active     INTEGER NOT NULL DEFAULT 1,
  position   INTEGER NOT NULL
);

CREATE TABLE users (
  id         TEXT PRIMARY KEY,
  email      TEXT NOT NULL UNIQUE COLLATE NOCASE,
  plan_id    TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
  key_hash   TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
);

CREATE TABLE connect_codes (
  code_hash    TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  challenge    TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  expires_at   INTEGER NOT NULL,
  used         INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at INTEGER NOT NULL,
  revoked    INTEGER NOT NULL DEFAULT 0,
  code_hash  TEXT
);
CREATE INDEX sessions_by_code ON sessions(code_hash);

-- n orders inboxes by creation and is the keyset of the inbox cursor (never reused).
CREATE TABLE inboxes (
  n             INTEGER PRIMARY KEY AUTOINCREMENT,
  id            TEXT NOT NULL UNIQUE,
  local_part    TEXT NOT NULL,
  domain_id     TEXT NOT NULL REFERENCES domains(id),
  owner_user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  label         TEXT,
  forward_to    TEXT,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER,
  token_hash    TEXT NOT NULL UNIQUE,
  message_count INTEGER NOT NULL DEFAULT 0,
  last_seq      INTEGER NOT NULL DEFAULT 0
);
-- One inbox per address; local parts compare case-insensitively.
CREATE UNIQUE INDEX inboxes_by_address ON inboxes(domain_id, local_part COLLATE NOCASE);
CREATE INDEX inboxes_by_owner ON inboxes(owner_user_id, n);
CREATE INDEX inboxes_by_expiry ON inboxes(expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE messages (
  id              TEXT PRIMARY KEY,
  inbox_id        TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL,
  from_json       TEXT,
  to_json         TEXT NOT NULL,
  cc_json         TEXT NOT NULL,
  reply_to_json   TEXT NOT NULL,
  subject         TEXT NOT NULL,
  preview         TEXT NOT NULL,
  received_at     INTEGER NOT NULL,
  size            INTEGER NOT NULL,
  has_attachments INTEGER NOT NULL,
  headers_json    TEXT NOT NULL,
  text_body       TEXT,
  raw_html        TEXT,
  sanitized_html  TEXT,
  envelope_from   TEXT NOT NULL
);
CREATE UNIQUE INDEX messages_by_inbox_seq ON messages(inbox_id, seq);

CREATE TABLE message_raw (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  raw        BLOB NOT NULL
);

CREATE TABLE attachments (
  id           TEXT NOT NULL,
  message_id   TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  position     INTEGER NOT NULL,
  filename     TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size         INTEGER NOT NULL,
  content_id   TEXT,
  inline       INTEGER NOT NULL,
  content      BLOB NOT NULL,
  PRIMARY KEY (message_id, id)
);
