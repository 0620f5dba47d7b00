-- Issue 48. The templates a caller registers for a provider's template id
-- live in the store, so a send through any node renders them; the caller's
-- oldest go beyond its bound (the registration's transaction removes them).
CREATE TABLE email_templates (
  owner_key   TEXT NOT NULL,
  provider    TEXT NOT NULL,
  template_id TEXT NOT NULL,
  subject     TEXT NOT NULL,
  html        TEXT,
  text_body   TEXT,
  updated_at  BIGINT NOT NULL,
  PRIMARY KEY (owner_key, provider, template_id)
);
CREATE INDEX email_templates_by_owner ON email_templates (owner_key, updated_at);
