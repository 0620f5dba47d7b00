-- Whether a message was read (issue 46): IMAP's \Seen flag and POP3's RETR
-- set it, the API reads and sets it as `seen`. FALSE for every message stored before.
ALTER TABLE messages ADD COLUMN seen BOOLEAN NOT NULL DEFAULT FALSE;
