-- The SMTP envelope of each stored copy (issue 30): MAIL FROM, the RCPT TO
-- addresses routed to this copy's inbox, the client's address and its HELO
-- name, as JSON. NULL for messages stored before this migration.
ALTER TABLE messages ADD COLUMN envelope_json TEXT;
