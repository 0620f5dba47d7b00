-- Issue 48. The idempotency keys of the provider APIs (Resend's) live in the
-- store, so a repeat through any node answers the first send's answer; a
-- key expires after its hours, and each caller and the store keep a bounded number.
CREATE TABLE idempotency_keys (
  owner_key  TEXT NOT NULL,
  idem_key   TEXT NOT NULL,
  body_hash  TEXT NOT NULL,
  answer     TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (owner_key, idem_key)
);
CREATE INDEX idempotency_keys_by_owner ON idempotency_keys (owner_key, created_at);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
