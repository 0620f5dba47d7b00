-- Issue 39. Twilio Verify's state lives in the store, so a check may land on
-- any node: one pending verification per service and number, gone with its
-- phone's inbox, once approved, or at expires_at (the code's 10 minutes).
CREATE TABLE sms_verifications (
  sid         TEXT PRIMARY KEY,
  inbox_id    TEXT NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  service_sid TEXT NOT NULL,
  account_sid TEXT NOT NULL,
  to_number   TEXT NOT NULL,
  channel     TEXT NOT NULL,
  code        TEXT NOT NULL,
  checks      INTEGER NOT NULL,
  sends       TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL
);
CREATE UNIQUE INDEX sms_verifications_by_number ON sms_verifications (service_sid, to_number);
CREATE INDEX sms_verifications_by_inbox ON sms_verifications (inbox_id, created_at);
CREATE INDEX sms_verifications_by_expiry ON sms_verifications (expires_at);

-- The Verify services apps made, charged to the caller that made them.
CREATE TABLE sms_verify_services (
  sid           TEXT PRIMARY KEY,
  owner_key     TEXT NOT NULL,
  friendly_name TEXT NOT NULL,
  code_length   INTEGER NOT NULL,
  created_at    BIGINT NOT NULL
);
CREATE INDEX sms_verify_services_by_owner ON sms_verify_services (owner_key, created_at);
