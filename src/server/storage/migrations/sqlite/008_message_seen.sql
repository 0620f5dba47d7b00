-- Whether a message was read (issue 46): IMAP's \Seen flag and POP3's RETR
-- set it, the API reads and sets it as `seen`. 0 for every message stored before.
ALTER TABLE messages ADD COLUMN seen INTEGER NOT NULL DEFAULT 0;
