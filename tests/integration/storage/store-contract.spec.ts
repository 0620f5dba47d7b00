import { test, expect } from '@playwright/test';
import { newMessage } from '../../support/new-message.ts';
import { BACKENDS } from '../../support/backends.ts';
import type { Backend } from '../../support/backends.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';
import { InvalidCursorError } from '../../../src/server/storage/contract/cursor.ts';

const T0 = 1_800_000_000_000;

/** A store of the backend under test; its `close()` also drops its database. */
async function open(backend: Backend, options: { now?: () => number } = {}): Promise<Store> {
  const handle = await backend.open(options);
  return { ...handle.store, close: handle.close };
}

async function inbox(store: Store, domainId: string, localPart: string, expiresAt: number | null = null, createdAt = T0) {
  const created = await store.createInbox({ localPart, domainId, ownerUserId: null, label: null, tokenHash: `h-${localPart}-${createdAt}`, createdAt, expiresAt });
  if (created === 'address_taken') throw new Error('taken');
  return created;
}

/**
 * The Store contract: every backend passes the same tests (written once,
 * run over SQLite and PostgreSQL).
 */
for (const backend of BACKENDS) {
  test.describe(`the ${backend.name} store`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');

    async function setup(): Promise<{ store: Store; domainId: string }> {
      const store = await open(backend);
      const [domain] = await store.syncDomains(['inboxkit.test', 'other.test']);
      return { store, domainId: domain!.id };
    }

    test('messages get seq 1, 2, 3 per inbox, independently in each inbox of one delivery', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      const b = await inbox(store, domainId, 'b');
      await store.insertMessage([a.id], newMessage('one'), T0);
      const both = await store.insertMessage([a.id, b.id], newMessage('two'), T0 + 1);
      expect(both.map((m) => [m.inboxId, m.seq])).toEqual([[a.id, 2], [b.id, 1]]);
      expect(both[0]!.id).not.toBe(both[1]!.id);
      expect((await store.findInboxById(a.id))!.messageCount).toBe(2);
      expect((await store.findInboxById(a.id))!.lastSeq).toBe(2);
      await store.close();
    });

    test('a seq is never reused after the newest message is deleted', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      const [first] = await store.insertMessage([a.id], newMessage('one'), T0);
      expect(await store.deleteMessage(first!.id)).toBe(true);
      const [second] = await store.insertMessage([a.id], newMessage('two'), T0);
      expect(second!.seq).toBe(2);
      expect((await store.findInboxById(a.id))!.messageCount).toBe(1);
      await store.close();
    });

    test('a message stored for an inbox deleted meanwhile is skipped, the others are stored', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      const stored = await store.insertMessage([a.id, 'ibx_gone'], newMessage('one'), T0);
      expect(stored.map((m) => m.inboxId)).toEqual([a.id]);
      await store.close();
    });

    test('the message list pages newest first and its cursor stays valid while messages arrive and are deleted', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      for (let i = 1; i <= 5; i++) await store.insertMessage([a.id], newMessage(`m${i}`), T0 + i);
      const page1 = await store.listMessages(a.id, { cursor: null, limit: 2 });
      expect(page1.items.map((m) => m.subject)).toEqual(['m5', 'm4']);
      // Meanwhile: two arrive, one of the next page is deleted.
      await store.insertMessage([a.id], newMessage('m6'), T0 + 6);
      await store.insertMessage([a.id], newMessage('m7'), T0 + 7);
      const m3 = (await store.listMessagesAfterSeq(a.id, 2, 1))[0]!;
      await store.deleteMessage(m3.id);
      const page2 = await store.listMessages(a.id, { cursor: page1.nextCursor, limit: 2 });
      expect(page2.items.map((m) => m.subject)).toEqual(['m2', 'm1']);
      expect(page2.nextCursor).toBeNull();
      await store.close();
    });

    test('a cursor of another list is refused as invalid', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      await expect(store.listMessages(a.id, { cursor: 'bm90LWEtY3Vyc29y', limit: 2 })).rejects.toBeInstanceOf(InvalidCursorError);
      await store.close();
    });

    test('replay lists the messages after a seq, oldest first', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      for (let i = 1; i <= 4; i++) await store.insertMessage([a.id], newMessage(`m${i}`), T0 + i);
      expect((await store.listMessagesAfterSeq(a.id, 2, 100)).map((m) => m.seq)).toEqual([3, 4]);
      expect(await store.listMessagesAfterSeq(a.id, 4, 100)).toEqual([]);
      await store.close();
    });

    test('each copy of a delivery keeps its own SMTP envelope, and a copy stored without one reads back null', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'env-a');
      const b = await inbox(store, domainId, 'env-b');
      const c = await inbox(store, domainId, 'env-c');
      const base = { mailFrom: 'bounce@mailer.test', clientAddress: '127.0.0.1', helo: 'app.test' };
      const envelopes = new Map([
        [a.id, { ...base, rcptTo: ['env-a@inboxkit.test'] }],
        [b.id, { ...base, rcptTo: ['env-b@inboxkit.test', 'ENV-B@inboxkit.test'] }],
      ]);
      const stored = await store.insertMessage([a.id, b.id, c.id], newMessage('enveloped'), T0, envelopes);
      expect(stored.map((m) => m.envelope)).toEqual([envelopes.get(a.id), envelopes.get(b.id), null]);
      for (const copy of stored) expect((await store.findMessage(copy.id))!.envelope).toEqual(copy.envelope);
      await store.close();
    });

    test('a stored message keeps its bodies, sanitized HTML, headers, raw source and attachment bytes, and is returned whole', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]);
      const [summary] = await store.insertMessage(
        [a.id],
        newMessage('with file', {
          rawHtml: '<p onclick="x()">hi</p>',
          sanitizedHtml: '<p>hi</p>',
          text: `  line one\n\n  line two ${'x'.repeat(300)}`,
          attachments: [{ filename: 'a.pdf', contentType: 'application/pdf', contentId: null, inline: false, content: pdf }],
        }),
        T0,
      );
      expect(summary!.hasAttachments).toBe(true);
      expect(summary!.preview).toHaveLength(200);
      expect(summary!.preview.startsWith('line one line two x')).toBe(true);
      const full = (await store.findMessage(summary!.id))!;
      expect(summary).toEqual(full);
      expect(full.rawHtml).toBe('<p onclick="x()">hi</p>');
      expect(full.sanitizedHtml).toBe('<p>hi</p>');
      expect(full.headers).toEqual({ subject: 'with file' });
      expect(full.attachments).toEqual([
        { id: expect.any(String), messageId: summary!.id, filename: 'a.pdf', contentType: 'application/pdf', size: 6, contentId: null, inline: false },
      ]);
      const att = (await store.findAttachment(summary!.id, full.attachments[0]!.id))!;
      expect([...att.content]).toEqual([...pdf]);
      expect(new TextDecoder().decode((await store.findRaw(summary!.id))!)).toContain('Subject: with file');
      expect(await store.findAttachment(summary!.id, 'att_nope')).toBeNull();
      await store.close();
    });

    test('evicting keeps the newest messages and updates the count', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      for (let i = 1; i <= 5; i++) await store.insertMessage([a.id], newMessage(`m${i}`), T0 + i);
      expect(await store.evictOldest(a.id, 2)).toBe(3);
      expect((await store.listMessages(a.id, { cursor: null, limit: 10 })).items.map((m) => m.seq)).toEqual([5, 4]);
      expect((await store.findInboxById(a.id))!.messageCount).toBe(2);
      expect(await store.evictOldest(a.id, 2)).toBe(0);
      await store.close();
    });

    test('evicting counts the messages left after deletions, spares other inboxes, and can empty an inbox', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      const b = await inbox(store, domainId, 'b');
      const stored = [];
      for (let i = 1; i <= 6; i++) stored.push(...(await store.insertMessage([a.id, b.id], newMessage(`m${i}`), T0 + i)));
      const third = stored.find((m) => m.inboxId === a.id && m.seq === 5)!;
      expect(await store.deleteMessage(third.id)).toBe(true);
      expect(await store.evictOldest(a.id, 3)).toBe(2);
      expect((await store.listMessages(a.id, { cursor: null, limit: 10 })).items.map((m) => m.seq)).toEqual([6, 4, 3]);
      expect((await store.findInboxById(b.id))!.messageCount).toBe(6);
      expect(await store.evictOldest(a.id, 0)).toBe(3);
      expect((await store.findInboxById(a.id))!.messageCount).toBe(0);
      expect(await store.evictOldest('inb_unknown', 0)).toBe(0);
      await store.close();
    });

    test('an address is taken case-insensitively while its inbox is active, and free again once it expired', async () => {
      const { store, domainId } = await setup();
      await inbox(store, domainId, 'Alice', T0 + 1000);
      expect(await store.createInbox({ localPart: 'alice', domainId, ownerUserId: null, label: null, tokenHash: 'h2', createdAt: T0 + 999, expiresAt: null })).toBe('address_taken');
      expect((await store.findActiveInboxByAddress('Alice', 'InboxKit.TEST', T0))?.localPart).toBe('Alice');
      expect(await store.findActiveInboxByAddress('Alice', 'inboxkit.test', T0 + 1000)).toBeNull();
      const again = await store.createInbox({ localPart: 'alice', domainId, ownerUserId: null, label: null, tokenHash: 'h3', createdAt: T0 + 1000, expiresAt: null });
      expect(again).not.toBe('address_taken');
      await store.close();
    });

    test('mail is routed by the local part and the domain in any case, to the inbox as it was created', async () => {
      const { store, domainId } = await setup();
      await inbox(store, domainId, 'Alice.Smith');
      await inbox(store, domainId, 'bob');
      expect((await store.findActiveInboxByAddress('Alice.Smith', 'INBOXKIT.test', T0))?.localPart).toBe('Alice.Smith');
      expect((await store.findActiveInboxByAddress('alice.smith', 'inboxkit.test', T0))?.localPart).toBe('Alice.Smith');
      expect((await store.findActiveInboxByAddress('ALICE.SMITH', 'inboxkit.test', T0))?.localPart).toBe('Alice.Smith');
      expect((await store.findActiveInboxByAddress('BOB', 'inboxkit.test', T0))?.localPart).toBe('bob');
      expect(await store.findActiveInboxByAddress('alice', 'inboxkit.test', T0)).toBeNull();
      await store.close();
    });

    test('sweeping deletes expired inboxes with their messages and leaves the others', async () => {
      const { store, domainId } = await setup();
      const old = await inbox(store, domainId, 'old', T0 + 10);
      const keep = await inbox(store, domainId, 'keep', null);
      const [m] = await store.insertMessage([old.id, keep.id], newMessage('x'), T0);
      expect(await store.sweepExpired(T0 + 10)).toEqual([old.id]);
      expect(await store.findInboxById(old.id)).toBeNull();
      expect(await store.findMessage(m!.id)).toBeNull();
      expect(await store.findRaw(m!.id)).toBeNull();
      expect((await store.findInboxById(keep.id))!.messageCount).toBe(1);
      expect(await store.sweepExpired(T0 + 10)).toEqual([]);
      await store.close();
    });

    test('deleting an inbox reports how many messages went', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      await store.insertMessage([a.id], newMessage('1'), T0);
      await store.insertMessage([a.id], newMessage('2'), T0);
      expect(await store.deleteInbox(a.id)).toEqual({ messagesDeleted: 2 });
      expect(await store.deleteInbox(a.id)).toBeNull();
      await store.close();
    });

    test('owners list only their active inboxes, newest first, across pages', async () => {
      const { store, domainId } = await setup();
      const user = await store.createUser({ email: 'u@example.com', planId: 'premium' });
      for (let i = 1; i <= 3; i++) {
        await store.createInbox({ localPart: `u${i}`, domainId, ownerUserId: user.id, label: null, tokenHash: `t${i}`, createdAt: T0 + i, expiresAt: i === 2 ? T0 + 5 : null });
      }
      await inbox(store, domainId, 'guest');
      const first = await store.listInboxesByOwner(user.id, { cursor: null, limit: 1, now: T0 + 10 });
      expect(first.items.map((i) => i.localPart)).toEqual(['u3']);
      const second = await store.listInboxesByOwner(user.id, { cursor: first.nextCursor, limit: 1, now: T0 + 10 });
      expect(second.items.map((i) => i.localPart)).toEqual(['u1']);
      expect(second.nextCursor).toBeNull();
      expect(await store.countActiveInboxesByOwner(user.id, T0 + 10)).toBe(2);
      await store.close();
    });

    test('the operator list holds every active inbox of every owner, newest first, across pages', async () => {
      const { store, domainId } = await setup();
      const user = await store.createUser({ email: 'u@example.com', planId: 'premium' });
      await store.createInbox({ localPart: 'owned', domainId, ownerUserId: user.id, label: null, tokenHash: 'to', createdAt: T0 + 1, expiresAt: null });
      await inbox(store, domainId, 'expired', T0 + 5, T0 + 2);
      await inbox(store, domainId, 'guest', null, T0 + 3);
      const first = await store.listActiveInboxes({ cursor: null, limit: 1, now: T0 + 10 });
      expect(first.items.map((i) => i.localPart)).toEqual(['guest']);
      const second = await store.listActiveInboxes({ cursor: first.nextCursor, limit: 5, now: T0 + 10 });
      expect(second.items.map((i) => i.localPart)).toEqual(['owned']);
      expect(second.nextCursor).toBeNull();
      await store.close();
    });

    test('searching messages matches subject, sender, recipients and text case-insensitively, with % and _ literal', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      const other = await inbox(store, domainId, 'other');
      await store.insertMessage([a.id], newMessage('Invoice 42'), T0);
      await store.insertMessage([a.id], newMessage('hello', { from: { address: 'billing@shop.example', name: 'Shop Billing' } }), T0);
      await store.insertMessage([a.id], newMessage('to someone', { to: [{ address: 'carol@elsewhere.example', name: '' }] }), T0);
      await store.insertMessage([a.id], newMessage('copy', { cc: [{ address: 'dave@cc.example', name: 'Dave' }] }), T0);
      await store.insertMessage([a.id], newMessage('plain', { text: 'the secret word is Marmalade' }), T0);
      await store.insertMessage([a.id], newMessage('100% off'), T0);
      await store.insertMessage([a.id], newMessage('1000 off'), T0);
      await store.insertMessage([a.id], newMessage('snake_case'), T0);
      await store.insertMessage([a.id], newMessage('snakeXcase'), T0);
      await store.insertMessage([other.id], newMessage('invoice elsewhere'), T0);
      const subjects = async (q: string | null) => (await store.listMessages(a.id, { cursor: null, limit: 50, q })).items.map((m) => m.subject);
      expect(await subjects('INVOICE')).toEqual(['Invoice 42']);
      expect(await subjects('shop billing')).toEqual(['hello']);
      expect(await subjects('billing@shop')).toEqual(['hello']);
      expect(await subjects('carol@')).toEqual(['to someone']);
      expect(await subjects('dave@cc')).toEqual(['copy']);
      expect(await subjects('marmalade')).toEqual(['plain']);
      expect(await subjects('100%')).toEqual(['100% off']);
      expect(await subjects('snake_case')).toEqual(['snake_case']);
      expect(await subjects('no such thing')).toEqual([]);
      expect(await subjects('')).toHaveLength(9);
      expect(await subjects(null)).toHaveLength(9);
      await store.close();
    });

    test('a search pages newest first with a cursor, like the plain list', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      for (let i = 1; i <= 5; i++) await store.insertMessage([a.id], newMessage(i % 2 === 1 ? `match ${i}` : `other ${i}`), T0);
      const first = await store.listMessages(a.id, { cursor: null, limit: 2, q: 'match' });
      expect(first.items.map((m) => m.subject)).toEqual(['match 5', 'match 3']);
      const second = await store.listMessages(a.id, { cursor: first.nextCursor, limit: 2, q: 'match' });
      expect(second.items.map((m) => m.subject)).toEqual(['match 1']);
      expect(second.nextCursor).toBeNull();
      await store.close();
    });

    test('the copies a delivery returns are exactly what reading them back gives, lone surrogates and NULs included', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'same-a');
      const b = await inbox(store, domainId, 'same-b');
      const odd = 'half \uD83D pair \uDE00 nul\u0000 \uE000 😀';
      const message = newMessage(odd, {
        from: null,
        to: [{ address: 'same-a@inboxkit.test', name: odd }],
        cc: [{ address: 'cc@example.com', name: 'C' }],
        replyTo: [{ address: 'reply@example.com', name: odd }],
        headers: { subject: odd, 'x-odd': odd },
        text: `${odd} ${'y'.repeat(300)}`,
        rawHtml: `<p>${odd}</p>`,
        sanitizedHtml: `<p>${odd}</p>`,
        attachments: [
          { filename: `${odd}.txt`, contentType: 'text/plain', contentId: `<${odd}>`, inline: true, content: new Uint8Array([1, 2, 3]) },
          { filename: 'b.bin', contentType: 'application/octet-stream', contentId: null, inline: false, content: new Uint8Array(0) },
        ],
      });
      const envelopes = new Map([[b.id, { mailFrom: odd, rcptTo: [`${odd}@inboxkit.test`], clientAddress: null, helo: odd }]]);
      const stored = await store.insertMessage([a.id, b.id], message, T0, envelopes);
      expect(stored).toHaveLength(2);
      for (const copy of stored) expect(copy).toStrictEqual(await store.findMessage(copy.id));
      expect(stored[0]!.subject).toBe('half \uFFFD pair \uFFFD nul\u0000 \uE000 😀');
      await store.close();
    });

    test('text with NUL and private-use characters round-trips exactly, and ids with NUL find nothing', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'a');
      const odd = 'nul\u0000here \uE000 \uE000\u0000 \uE0000 end';
      const [stored] = await store.insertMessage([a.id], newMessage(odd, { text: `text ${odd}`, headers: { subject: odd } }), T0);
      const found = await store.findMessage(stored!.id);
      expect(found!.subject).toBe(odd);
      expect(found!.text).toBe(`text ${odd}`);
      expect(found!.headers.subject).toBe(odd);
      expect((await store.listMessages(a.id, { cursor: null, limit: 5, q: '\u0000here' })).items.map((m) => m.id)).toEqual([stored!.id]);
      expect(await store.findMessage(`${stored!.id}\u0000`)).toBeNull();
      expect(await store.findInboxById('\u0000')).toBeNull();
      await store.close();
    });

    test('a connect code can be spent once; the second spend reports it used', async () => {
      const { store } = await setup();
      const user = await store.createUser({ email: 'u@example.com', planId: 'premium' });
      await store.addConnectCode({ codeHash: 'c', userId: user.id, challenge: 'ch', redirectUri: 'https://x/cb', expiresAt: T0 });
      expect(await store.spendConnectCode('c')).toMatchObject({ used: false, userId: user.id, challenge: 'ch' });
      expect(await store.spendConnectCode('c')).toMatchObject({ used: true });
      expect(await store.spendConnectCode('nope')).toBeNull();
      await store.addSession({ tokenHash: 's1', userId: user.id, expiresAt: T0, codeHash: 'c' });
      expect(await store.revokeSessionsByCode('c')).toBe(1);
      expect(await store.findSession('s1')).toMatchObject({ revoked: true });
      await store.close();
    });

    test('domains keep stable ids; a domain dropped from the configuration is no longer listed', async () => {
      const { store } = await setup();
      const before = await store.listDomains();
      expect(before.map((d) => [d.domain, d.isDefault])).toEqual([['inboxkit.test', true], ['other.test', false]]);
      const after = await store.syncDomains(['other.test']);
      expect(after).toEqual([{ id: before[1]!.id, domain: 'other.test', isDefault: true }]);
      expect(await store.findDomainById(before[0]!.id)).toBeNull();
      expect(await store.findDomainByName('OTHER.test')).toMatchObject({ id: before[1]!.id });
      await store.close();
    });

    test('times the store sets itself come from its injected clock, not the wall clock', async () => {
      const store = await open(backend, { now: () => T0 });
      try {
        const user = await store.createUser({ email: 'clock@example.com', planId: 'premium' });
        expect(user.createdAt).toBe(T0);
        expect((await store.findUserById(user.id))?.createdAt).toBe(T0);
      } finally {
        await store.close();
      }
    });

    test('deliveries racing into one inbox get every seq from 1 once, with no gap', async () => {
      const { store, domainId } = await setup();
      const a = await inbox(store, domainId, 'race');
      const stored = await Promise.all(Array.from({ length: 40 }, (_, i) => store.insertMessage([a.id], newMessage(`r${i}`), T0 + i)));
      expect(stored.flat().map((m) => m.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await store.findInboxById(a.id)).toMatchObject({ lastSeq: 40, messageCount: 40 });
      await store.close();
    });

    test('a connect code spent by racing callers is unused for exactly one of them', async () => {
      const { store } = await setup();
      const user = await store.createUser({ email: 'race@example.com', planId: 'premium' });
      await store.addConnectCode({ codeHash: 'rc', userId: user.id, challenge: 'ch', redirectUri: 'https://x/cb', expiresAt: T0 });
      const spends = await Promise.all(Array.from({ length: 8 }, () => store.spendConnectCode('rc')));
      expect(spends.filter((s) => s?.used === false)).toHaveLength(1);
      await store.close();
    });

    test('racing sweeps report each expired inbox once between them', async () => {
      const { store, domainId } = await setup();
      const ids = [];
      for (let i = 0; i < 6; i++) ids.push((await inbox(store, domainId, `exp${i}`, T0 + 5)).id);
      const swept = await Promise.all([store.sweepExpired(T0 + 10), store.sweepExpired(T0 + 10), store.sweepExpired(T0 + 10)]);
      expect(swept.flat().sort()).toEqual([...ids].sort());
      await store.close();
    });

    test('rate-limit hits count up within a window and start again once it ended', async () => {
      const { store } = await setup();
      expect(await store.hitRateLimit('k', 60_000, T0)).toEqual({ count: 1, windowStart: T0 });
      expect(await store.hitRateLimit('k', 60_000, T0 + 59_999)).toEqual({ count: 2, windowStart: T0 });
      expect(await store.hitRateLimit('other', 60_000, T0 + 1)).toEqual({ count: 1, windowStart: T0 + 1 });
      expect(await store.hitRateLimit('k', 60_000, T0 + 60_000)).toEqual({ count: 1, windowStart: T0 + 60_000 });
      const racing = await Promise.all(Array.from({ length: 20 }, () => store.hitRateLimit('burst', 60_000, T0)));
      expect(racing.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      await store.close();
    });
  });
}
