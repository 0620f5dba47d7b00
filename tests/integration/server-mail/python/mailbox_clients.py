"""Reads a test inbox with Python's own imaplib and poplib (issue 46).

Usage: python3 mailbox_clients.py HOST IMAP_PORT POP3_PORT ADDRESS TOKEN
Prints one JSON object of what each client saw; the spec checks it.
"""
import imaplib
import json
import poplib
import sys

host, imap_port, pop3_port, address, token = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
out = {}

# A wrong token is refused.
try:
    bad = imaplib.IMAP4(host, imap_port)
    bad.login(address, token + "x")
    out["wrong_token"] = "accepted"
except imaplib.IMAP4.error as error:
    out["wrong_token"] = str(error)

imap = imaplib.IMAP4(host, imap_port)
imap.login(address, token)
status, data = imap.select("INBOX")
out["exists"] = int(data[0])
out["unseen"] = imap.search(None, "UNSEEN")[1][0].decode()
out["from_alice"] = imap.search(None, "FROM", '"alice@one.example"')[1][0].decode()
out["subject_invoice"] = imap.search(None, "SUBJECT", "invoice")[1][0].decode()
# RFC822 (not BODY.PEEK) marks the message \Seen.
fetched = imap.fetch("1", "(RFC822)")[1][0]
out["rfc822_has_subject"] = b"Subject: Welcome aboard" in fetched[1]
out["flags_1"] = imap.fetch("1", "(FLAGS)")[1][0].decode()
out["unseen_after_fetch"] = imap.search(None, "UNSEEN")[1][0].decode()
uid_data = imap.uid("SEARCH", None, "ALL")[1][0].decode().split()
out["uids"] = uid_data
imap.store("2", "+FLAGS", "\\Deleted")
out["expunged"] = [line.decode() for line in imap.expunge()[1] if line]
out["exists_after_expunge"] = int(imap.select("INBOX")[1][0])
imap.logout()

pop = poplib.POP3(host, pop3_port)
pop.user(address)
pop.pass_(token)
out["pop_stat"] = list(pop.stat())
out["pop_list"] = [line.decode() for line in pop.list()[1]]
out["pop_uidl"] = [line.decode() for line in pop.uidl()[1]]
out["pop_retr_subject"] = [line.decode() for line in pop.retr(2)[1] if line.startswith(b"Subject:")]
out["pop_top_lines"] = len(pop.top(1, 0)[1]) > 0
pop.dele(1)
pop.quit()

pop = poplib.POP3(host, pop3_port)
pop.user(address)
pop.pass_(token)
out["pop_stat_after_dele"] = list(pop.stat())
pop.quit()

print(json.dumps(out))
