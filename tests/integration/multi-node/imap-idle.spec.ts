/**
 * IMAP on two nodes of one PostgreSQL database (issue 46): an IDLE held on
 * one node is told of mail the other node's SMTP took, through the database's
 * notifications (no poll), and both nodes give the same UIDVALIDITY and UIDs.
 */
import { test, expect } from '@playwright/test';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { freshPostgres, POSTGRES_SKIP, POSTGRES_URL } from '../../support/backends.ts';
import type { TestDatabase } from '../../support/backends.ts';
import { createInbox } from './cluster.ts';

test.describe('IMAP on two nodes of one PostgreSQL', () => {
  test.skip(POSTGRES_URL === null, POSTGRES_SKIP);
  let db: TestDatabase;
  const nodes: RunningServer[] = [];

  test.beforeEach(async () => {
    db = await freshPostgres();
    const options = { db: db.url, rateLimit: false as const, imapPort: 0 };
    nodes.push(...(await Promise.all([startServer(options), startServer(options)])));
  });

  test.afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
    await db.drop();
  });

  test('an IDLE on one node hears of mail the other node took, with the same UIDVALIDITY and UIDs on both', async () => {
    const [a, b] = nodes as [RunningServer, RunningServer];
    const inbox = await createInbox(a.apiUrl);
    const connect = async (node: RunningServer) => {
      const client = new ImapFlow({ host: '127.0.0.1', port: node.imap!.port, secure: false, auth: { user: inbox.address, pass: inbox.token }, logger: false });
      await client.connect();
      await client.mailboxOpen('INBOX');
      return client;
    };
    const onA = await connect(a);
    const exists = new Promise<number>((resolve) => onA.on('exists', (event: { count: number }) => resolve(event.count)));
    const idling = onA.idle();
    await expect.poll(() => (onA as unknown as { idling: boolean }).idling).toBe(true);
    const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: b.smtpPort, secure: false, ignoreTLS: true });
    await mailer.sendMail({ from: 'app@example.test', to: inbox.address, subject: 'taken by node b', text: 'x' });
    mailer.close();
    expect(await exists).toBe(1);
    await onA.noop();
    await idling;

    const onB = await connect(b);
    const [fromA, fromB] = await Promise.all([onA.fetchOne('1', { uid: true, envelope: true }), onB.fetchOne('1', { uid: true, envelope: true })]);
    expect(fromA && fromA.envelope?.subject).toBe('taken by node b');
    expect([fromA && fromA.uid, onA.mailbox && onA.mailbox.uidValidity]).toEqual([fromB && fromB.uid, onB.mailbox && onB.mailbox.uidValidity]);
    await onA.logout();
    await onB.logout();
  });
});
