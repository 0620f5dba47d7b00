-- API keys given by flag or environment (configured = true) are removed again when a
-- later start no longer configures them; keys made by `inboxkit keys create` stay.
ALTER TABLE api_keys ADD COLUMN configured BOOLEAN NOT NULL DEFAULT false;
