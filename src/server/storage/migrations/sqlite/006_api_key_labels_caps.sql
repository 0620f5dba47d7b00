-- Issue 40. An API key carries a label and its own caps (NULL: the service's
-- default), is kept when revoked (revoked_at) so `inboxkit keys list` can show
-- it, and remembers when it was last used (written at most once a minute).
ALTER TABLE api_keys ADD COLUMN label TEXT;
ALTER TABLE api_keys ADD COLUMN max_inboxes INTEGER;
ALTER TABLE api_keys ADD COLUMN requests_per_minute INTEGER;
ALTER TABLE api_keys ADD COLUMN max_streams INTEGER;
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
ALTER TABLE api_keys ADD COLUMN revoked_at INTEGER;

-- Retention (--message-ttl): the expiry sweep finds mail by the time it arrived.
CREATE INDEX messages_by_received ON messages (received_at);
