// Child process of durability.spec.ts: stores one message in a database file,
// says so once insertMessage has resolved, then waits to be killed.
import { createSqliteStore } from '../../../src/server/storage/sqlite.ts';

const path = process.argv[2];
if (!path) throw new Error('usage: durability-child.ts <db path>');
const store = createSqliteStore({ path });
const [domain] = await store.syncDomains(['inboxkit.test']);
const inbox = await store.createInbox({ localPart: 'durable', domainId: domain!.id, ownerUserId: null, label: null, tokenHash: 'h', createdAt: Date.now(), expiresAt: null });
if (inbox === 'address_taken') throw new Error('address taken');
const [stored] = await store.insertMessage(
  [inbox.id],
  {
    raw: new TextEncoder().encode('Subject: kept\r\n\r\nkept\r\n'),
    from: null,
    to: [],
    cc: [],
    replyTo: [],
    subject: 'kept',
    headers: {},
    text: 'kept',
    rawHtml: null,
    sanitizedHtml: null,
    envelopeFrom: '',
    attachments: [{ filename: 'a.bin', contentType: 'application/octet-stream', contentId: null, inline: false, content: new Uint8Array(64 * 1024).fill(7) }],
  },
  Date.now(),
);
process.stdout.write(`${JSON.stringify({ messageId: stored!.id })}\n`);
setInterval(() => {}, 1000);
