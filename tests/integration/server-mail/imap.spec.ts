/**
 * Every inbox as an IMAP account (issue 46), read with imapflow, a real
 * client: login with the inbox's address and its inbox token (or an API key
 * of its owner), FETCH of envelope, body structure, the message byte for
 * byte and its partials, SEARCH, \Seen kept in the store, \Deleted with
 * EXPUNGE deleting through the store, IDLE told of mail the moment SMTP
 * commits it, and STARTTLS with the SMTP intake's certificate.
 */
import { ImapFlow } from 'imapflow';
import type { ImapFlowOptions } from 'imapflow';
import type { CreatedInbox } from '../../../src/wire/schemas.ts';
import { expect, startMailServer, test } from './harness.ts';
import type { MailServer } from './harness.ts';

const KEY = 'tm_imap-owner-key-0123456789abcdef';

let mail: MailServer;
test.beforeEach(async () => {
  mail = await startMailServer({ imapPort: 0, pop3Port: 0, apiKeys: [KEY] });
});
test.afterEach(async () => {
  await mail.close();
});

/** An imapflow client of the service's IMAP port (not yet connected). */
function client(user: string, pass: string, options: Partial<ImapFlowOptions> = {}): ImapFlow {
  return new ImapFlow({ host: '127.0.0.1', port: mail.server.imap!.port, secure: false, auth: { user, pass }, logger: false, ...options });
}

/** Connects and opens INBOX; `close()` logs out. */
async function open(inbox: { address: string; token: string }): Promise<ImapFlow> {
  const imap = client(inbox.address, inbox.token);
  await imap.connect();
  await imap.mailboxOpen('INBOX');
  return imap;
}

const MULTIPART = {
  from: '"Shop Bot" <bot@shop.example>',
  subject: 'Your order 1042',
  text: 'Order 1042 confirmed.\nThanks!',
  html: '<p>Order <b>1042</b> confirmed.</p>',
  attachments: [{ filename: 'receipt.txt', content: 'total: 12.00\n' }],
  headers: { 'X-Test-Run': 'imap-42' },
};

test('an inbox token opens its inbox: envelope, body structure, the source byte for byte, and partials', async () => {
  const inbox = await mail.createInbox();
  await mail.send({ ...MULTIPART, to: inbox.address });
  const [summary] = await mail.waitForMessages(inbox, 1);
  const raw = Buffer.from(await (await mail.api(`/messages/${summary!.id}/raw`, inbox.token)).arrayBuffer());

  const imap = await open(inbox);
  expect(imap.mailbox && imap.mailbox.exists).toBe(1);
  const message = await imap.fetchOne('1', { envelope: true, bodyStructure: true, source: true, uid: true, flags: true, size: true, internalDate: true });
  expect(message).toBeTruthy();
  if (!message) return;
  expect(message.uid).toBe(summary!.seq);
  expect(message.envelope?.subject).toBe('Your order 1042');
  expect(message.envelope?.from).toEqual([{ name: 'Shop Bot', address: 'bot@shop.example' }]);
  expect(message.envelope?.to?.[0]?.address).toBe(inbox.address);
  expect(message.source?.equals(raw)).toBe(true);
  expect(message.size).toBe(raw.length);
  expect(message.flags?.has('\\Seen')).toBe(false);
  expect(message.bodyStructure?.type).toBe('multipart/mixed');
  const parts = message.bodyStructure?.childNodes ?? [];
  expect(parts.map((p) => p.type)).toEqual(['multipart/alternative', 'text/plain']);
  expect(parts[0]?.childNodes?.map((p) => p.type)).toEqual(['text/plain', 'text/html']);
  expect(parts[1]?.disposition).toBe('attachment');
  expect(parts[1]?.dispositionParameters?.filename).toBe('receipt.txt');

  const partial = await imap.fetchOne('1', { source: { start: 5, maxLength: 20 } });
  expect(partial && partial.source?.equals(raw.subarray(5, 25))).toBe(true);
  const headers = await imap.fetchOne('1', { headers: ['subject', 'x-test-run'] });
  // The two fields as received, in the message's order, then the blank line.
  const fields = headers ? (headers.headers?.toString() ?? '') : '';
  expect(fields.split('\r\n').sort()).toEqual(['', '', 'Subject: Your order 1042', 'X-Test-Run: imap-42']);
  expect(fields.endsWith('\r\n\r\n')).toBe(true);
  const { content } = await imap.download('1', '2');
  const chunks: Buffer[] = [];
  for await (const chunk of content!) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('total: 12.00\n');
  await imap.logout();
});

test('an API key of the inbox\'s owner opens it; a wrong token, another inbox\'s token and an unknown address are refused alike', async () => {
  const res = await fetch(`${mail.apiUrl}/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{}' });
  const owned = ((await res.json()) as { data: CreatedInbox }).data;
  const guest = await mail.createInbox();
  await mail.send({ from: 'a@example.test', to: owned.address, subject: 'for the key', text: 'x' });

  const byKey = client(owned.address, KEY);
  await byKey.connect();
  const lock = await byKey.getMailboxLock('INBOX');
  expect(byKey.mailbox && byKey.mailbox.exists).toBe(1);
  lock.release();
  await byKey.logout();

  for (const [user, pass] of [[owned.address, `${owned.token}x`], [owned.address, guest.token], [guest.address, KEY], [`nobody@${owned.domain}`, owned.token]] as const) {
    const bad = client(user, pass);
    const error = (await bad.connect().then(() => null, (e: unknown) => e)) as { authenticationFailed?: boolean; serverResponseCode?: string } | null;
    expect(error?.authenticationFailed, `${user} / ${pass.slice(0, 6)}…`).toBe(true);
    expect(error?.serverResponseCode).toBe('AUTHENTICATIONFAILED');
    bad.close();
  }
});

test('a second inbox\'s mail is never visible: not listed, not fetched by UID, not counted', async () => {
  const mine = await mail.createInbox();
  const other = await mail.createInbox();
  await mail.send({ from: 'a@example.test', to: other.address, subject: 'not yours', text: 'secret' });
  await mail.send({ from: 'a@example.test', to: other.address, subject: 'not yours either', text: 'secret' });
  await mail.send({ from: 'a@example.test', to: mine.address, subject: 'yours', text: 'hello' });
  const imap = await open(mine);
  expect(imap.mailbox && imap.mailbox.exists).toBe(1);
  const all = [];
  for await (const m of imap.fetch('1:*', { envelope: true, uid: true })) all.push(m.envelope?.subject);
  expect(all).toEqual(['yours']);
  expect(await imap.search({ body: 'secret' })).toEqual([]);
  const listed = await imap.list();
  expect(listed.map((m) => m.path)).toEqual(['INBOX']);
  const status = await imap.status('INBOX', { messages: true, uidNext: true });
  expect(status && status.messages).toBe(1);
  await imap.logout();
});

test('SEARCH finds by sender, recipient, subject, header, text, date, flags and UID range', async () => {
  const inbox = await mail.createInbox();
  await mail.send({ from: 'alice@one.example', to: inbox.address, subject: 'Welcome aboard', text: 'verify with 123456' });
  await mail.send({ from: 'bob@two.example', to: inbox.address, cc: 'carol@three.example', subject: 'Invoice 7', text: 'pay soon', headers: { 'X-Kind': 'billing' } });
  await mail.send({ from: 'alice@one.example', to: inbox.address, subject: 'Reset your password', text: 'click the link' });
  await mail.waitForMessages(inbox, 3);
  const imap = await open(inbox);
  expect(await imap.search({ from: 'alice@one.example' })).toEqual([1, 3]);
  expect(await imap.search({ to: inbox.address })).toEqual([1, 2, 3]);
  expect(await imap.search({ cc: 'carol' })).toEqual([2]);
  expect(await imap.search({ subject: 'invoice' })).toEqual([2]);
  expect(await imap.search({ header: { 'x-kind': 'billing' } })).toEqual([2]);
  expect(await imap.search({ body: '123456' })).toEqual([1]);
  expect(await imap.search({ text: 'click' })).toEqual([3]);
  expect(await imap.search({ since: new Date(Date.now() - 86_400_000) })).toEqual([1, 2, 3]);
  expect(await imap.search({ before: new Date(Date.now() - 86_400_000) })).toEqual([]);
  expect(await imap.search({ or: [{ subject: 'welcome' }, { subject: 'reset' }] })).toEqual([1, 3]);
  expect(await imap.search({ not: { from: 'alice' } } as never)).toEqual([2]);
  await imap.messageFlagsAdd('2', ['\\Seen']);
  expect(await imap.search({ seen: false })).toEqual([1, 3]);
  const uids = (await imap.search({ all: true }, { uid: true })) || [];
  expect(uids).toHaveLength(3);
  expect(await imap.search({ uid: `${uids[1]}:*` }, { uid: true })).toEqual(uids.slice(1));
  await imap.logout();
});

test('\\Seen is kept in the store: STORE sets and clears it, a later session sees it, and reading with BODY.PEEK leaves it', async () => {
  const inbox = await mail.createInbox();
  await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'one', text: '1' });
  await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'two', text: '2' });
  await mail.waitForMessages(inbox, 2);
  const first = await open(inbox);
  // imapflow reads sources with BODY.PEEK[]: nothing is marked.
  await first.fetchOne('1', { source: true });
  const peeked = await first.fetchOne('1', { flags: true });
  expect(peeked && peeked.flags?.has('\\Seen')).toBe(false);
  await first.messageFlagsAdd('1', ['\\Seen']);
  const flagged = await first.fetchOne('1', { flags: true });
  expect(flagged && flagged.flags?.has('\\Seen')).toBe(true);
  await first.messageFlagsRemove('1', ['\\Seen']);
  await first.messageFlagsAdd('2', ['\\Seen', '\\Flagged']);
  await first.logout();

  const second = await open(inbox);
  const seen: Record<string, boolean> = {};
  for await (const m of second.fetch('1:*', { flags: true, envelope: true })) seen[m.envelope?.subject ?? ''] = m.flags?.has('\\Seen') ?? false;
  expect(seen).toEqual({ one: false, two: true });
  await second.logout();
});

test('\\Deleted and EXPUNGE delete through the store: the API no longer lists the message', async () => {
  const inbox = await mail.createInbox();
  for (const subject of ['keep', 'drop', 'keep too']) await mail.send({ from: 'a@example.test', to: inbox.address, subject, text: subject });
  await mail.waitForMessages(inbox, 3);
  const imap = await open(inbox);
  const expunged: number[] = [];
  imap.on('expunge', (event: { seq: number }) => expunged.push(event.seq));
  expect(await imap.messageDelete('2')).toBe(true);
  expect(expunged).toEqual([2]);
  expect(imap.mailbox && imap.mailbox.exists).toBe(2);
  const subjects = (await mail.listMessages(inbox)).map((m) => m.subject).sort();
  expect(subjects).toEqual(['keep', 'keep too']);
  await imap.logout();
});

test('a message deleted through the API leaves the open mailbox at the next NOOP', async () => {
  const inbox = await mail.createInbox();
  await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'soon gone', text: 'x' });
  const [summary] = await mail.waitForMessages(inbox, 1);
  const imap = await open(inbox);
  const expunged: number[] = [];
  imap.on('expunge', (event: { seq: number }) => expunged.push(event.seq));
  expect((await mail.api(`/messages/${summary!.id}`, inbox.token, { method: 'DELETE' })).status).toBe(200);
  await imap.noop();
  expect(expunged).toEqual([1]);
  expect(imap.mailbox && imap.mailbox.exists).toBe(0);
  await imap.logout();
});

test('IDLE is told of new mail the moment SMTP commits it, without a poll', async () => {
  const inbox = await mail.createInbox();
  const imap = await open(inbox);
  const uidValidity = imap.mailbox && imap.mailbox.uidValidity;
  const exists = new Promise<number>((resolve) => imap.on('exists', (event: { count: number }) => resolve(event.count)));
  const idling = imap.idle();
  // The client sends IDLE first; a short wait for its "+ idling" is what any IDLE client does.
  await expect.poll(() => (imap as unknown as { idling: boolean }).idling).toBe(true);
  await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'pushed', text: 'now' });
  expect(await exists).toBe(1);
  await imap.noop();
  await idling;
  const message = await imap.fetchOne('*', { envelope: true, uid: true });
  expect(message && message.envelope?.subject).toBe('pushed');
  await imap.logout();

  // UIDVALIDITY and UIDs are the store's: the same on the next connection.
  const again = await open(inbox);
  expect(again.mailbox && again.mailbox.uidValidity).toBe(uidValidity);
  const again1 = await again.fetchOne('1', { uid: true });
  expect(again1 && again1.uid).toBe(message && message.uid);
  await again.logout();
});

test.describe('with a certificate', () => {
  test.beforeEach(async () => {
    await mail.close();
    mail = await startMailServer({ imapPort: 0, pop3Port: 0, smtpTlsSelfSigned: true, domains: ['mail.imap.test'] });
  });

  test('STARTTLS upgrades the connection with the SMTP intake\'s certificate before the login', async () => {
    const inbox = await mail.createInbox();
    await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'over tls', text: 'x' });
    const imap = client(inbox.address, inbox.token, { doSTARTTLS: true, tls: { rejectUnauthorized: false } });
    await imap.connect();
    expect(imap.secureConnection).toBe(true);
    await imap.mailboxOpen('INBOX');
    const message = await imap.fetchOne('1', { envelope: true });
    expect(message && message.envelope?.subject).toBe('over tls');
    await imap.logout();
  });
});

test('\\Seen is the API\'s read state both ways: STORE shows as seen in the API, PATCH seen shows at the next NOOP', async () => {
  const inbox = await mail.createInbox();
  await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'read me', text: 'x' });
  await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'and me', text: 'y' });
  const [second, first] = await mail.waitForMessages(inbox, 2);
  expect([first!.seen, second!.seen]).toEqual([false, false]);
  const imap = await open(inbox);
  await imap.messageFlagsAdd('1', ['\\Seen']);
  expect((await mail.getMessage(inbox, first!.id)).seen).toBe(true);
  expect((await mail.listMessages(inbox)).map((m) => [m.subject, m.seen])).toEqual([['and me', false], ['read me', true]]);

  const flagged = new Promise<{ seq: number; flags: Set<string> }>((resolve) => imap.on('flags', resolve));
  const patched = await mail.api(`/messages/${second!.id}`, inbox.token, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seen: true }) });
  expect(patched.status).toBe(200);
  expect(((await patched.json()) as { data: { seen: boolean } }).data.seen).toBe(true);
  await imap.noop();
  const event = await flagged;
  expect([event.seq, event.flags.has('\\Seen')]).toEqual([2, true]);
  expect(await imap.search({ seen: false })).toEqual([]);

  const bad = await mail.api(`/messages/${second!.id}`, inbox.token, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seen: 'yes' }) });
  expect(bad.status).toBe(400);
  await imap.logout();
});

test('an empty inbox opens with nothing in it: 1:* fetches nothing and SEARCH ALL finds nothing', async () => {
  const inbox = await mail.createInbox();
  const imap = await open(inbox);
  expect(imap.mailbox && imap.mailbox.exists).toBe(0);
  const fetched = [];
  for await (const m of imap.fetch('1:*', { uid: true })) fetched.push(m.uid);
  expect(fetched).toEqual([]);
  expect(await imap.search({ all: true })).toEqual([]);
  await imap.logout();
});
