/**
 * A database restart can fall between a message's COMMIT and its answer: the
 * message is stored, but the node never hears so. Told 451, the sender would
 * retry and the message would be stored twice (a test waiting for one message
 * would see two). The node asks the database instead, once it is back, and
 * answers what happened: stored once and 250, or not stored and 451.
 */
import { test, expect } from '@playwright/test';
import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { freshPostgres, POSTGRES_SKIP, POSTGRES_URL } from '../../support/backends.ts';
import type { TestDatabase } from '../../support/backends.ts';
import { startPgCommitProxy } from '../../support/pg-commit-proxy.ts';
import type { PgCommitProxy } from '../../support/pg-commit-proxy.ts';
import { createInbox, listAll } from './cluster.ts';

test.skip(POSTGRES_URL === null, POSTGRES_SKIP);

let db: TestDatabase;
let proxy: PgCommitProxy;
let node: RunningServer;

test.beforeEach(async () => {
  db = await freshPostgres();
  const target = new URL(db.url);
  proxy = await startPgCommitProxy({ host: target.hostname, port: Number(target.port) });
  node = await startServer({ db: proxy.url(db.url), rateLimit: false, inboxTtlSeconds: null, maxMessagesPerInbox: null });
});

test.afterEach(async () => {
  await node.close();
  await proxy.close();
  await db.drop();
});

/** Sends one message over SMTP: 250, or the reply the node refused it with. */
async function send(address: string, subject: string): Promise<{ code: number; reply: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: node.smtpPort, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ from: 'app@example.test', to: address, subject, text: 'Your code is 482913' });
    return { code: 250, reply: info.response };
  } catch (error) {
    const { responseCode = -1, response = String(error) } = error as { responseCode?: number; response?: string };
    return { code: responseCode, reply: response };
  } finally {
    transport.close();
  }
}

test('a message whose COMMIT was applied but never answered, the database away for a second, is stored once and the sender told 250', async () => {
  const inbox = await createInbox(node.apiUrl);
  proxy.breakNextCommit('answer-lost', { containing: 'INSERT INTO messages', holdMs: 1500 });
  expect((await send(inbox.address, 'while the database restarts')).code).toBe(250);
  expect(proxy.broken()).toBe(1);
  expect((await listAll(node.apiUrl, inbox)).map((m) => m.subject)).toEqual(['while the database restarts']);
});

test('a message whose COMMIT never reached the database is not stored and the sender told 451 4.3.0; its retry stores it once', async () => {
  const inbox = await createInbox(node.apiUrl);
  proxy.breakNextCommit('before-commit', { containing: 'INSERT INTO messages', holdMs: 500 });
  const refused = await send(inbox.address, 'retried');
  expect(refused.code).toBe(451);
  expect(refused.reply).toContain('4.3.0');
  expect(proxy.broken()).toBe(1);
  expect(await listAll(node.apiUrl, inbox)).toEqual([]);
  expect((await send(inbox.address, 'retried')).code).toBe(250);
  expect((await listAll(node.apiUrl, inbox)).map((m) => m.subject)).toEqual(['retried']);
});

test('an email API send whose COMMIT answer is lost answers its id, not 503, and the message is stored once', async () => {
  const inbox = await createInbox(node.apiUrl);
  proxy.breakNextCommit('answer-lost', { containing: 'INSERT INTO messages', holdMs: 1000 });
  const resend = new Resend('re_test', { baseUrl: `${node.url}/email/resend` });
  const { data, error } = await resend.emails.send({ from: 'app@example.test', to: inbox.address, subject: 'through Resend', text: 'Your code is 482913' });
  expect(error).toBeNull();
  expect(proxy.broken()).toBe(1);
  expect(data?.id).toBeTruthy();
  expect((await listAll(node.apiUrl, inbox)).map((m) => m.subject)).toEqual(['through Resend']);
});
