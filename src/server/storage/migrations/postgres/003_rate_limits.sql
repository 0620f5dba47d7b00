-- Rate-limit windows, shared by every node (one row per credential or client address).
-- UNLOGGED: counters are not worth a WAL write per request; a database crash resets them.
CREATE UNLOGGED TABLE rate_limits (
  key          TEXT PRIMARY KEY,
  window_start BIGINT NOT NULL,
  window_end   BIGINT NOT NULL,
  count        INTEGER NOT NULL
);
CREATE INDEX rate_limits_by_end ON rate_limits (window_end);
