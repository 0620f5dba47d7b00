import pino from 'pino';
import validator from 'validator';
import { createSmtpIntake } from '../../../src/server/smtp/intake.ts';
import { openProjectStore } from '../../support/backends.ts';
import { expect, rawSmtp, startMailServer, test } from './harness.ts';
import type { MailServer } from './harness.ts';

let server: MailServer;
test.beforeAll(async () => {
  server = await startMailServer({ maxRecipients: 100 });
});
test.afterAll(async () => {
  await server?.close();
});

test('EHLO announces SIZE, PIPELINING, 8BITMIME and SMTPUTF8, and neither AUTH nor STARTTLS', async () => {
  const smtp = await rawSmtp(server.smtpPort);
  expect((await smtp.reply()).code).toBe(220);
  const ehlo = await smtp.command('EHLO client.test');
  expect(ehlo.code).toBe(250);
  const features = ehlo.text.split('\n').map((l) => l.trim().toUpperCase());
  expect(features).toContain(`SIZE ${10 * 1024 * 1024}`);
  expect(features).toEqual(expect.arrayContaining(['PIPELINING', '8BITMIME', 'SMTPUTF8']));
  expect(features.some((f) => f.startsWith('AUTH'))).toBe(false);
  expect(features).not.toContain('STARTTLS');
  expect((await smtp.command('AUTH PLAIN AGJvYgBzZWNyZXQ=')).code).toBeGreaterThanOrEqual(500);
  await smtp.command('QUIT');
  smtp.close();
});

test('the greeting comes without the early-talker wait: a client that speaks first is answered, not refused', async () => {
  const smtp = await rawSmtp(server.smtpPort);
  // Written in the same turn as the connect, before any greeting could arrive.
  smtp.write('EHLO eager.test\r\n');
  const greeting = await smtp.reply();
  expect(greeting.code).toBe(220);
  expect((await smtp.reply()).code).toBe(250);
  smtp.close();
});

test('with the library\'s 100 ms greeting delay switched back on, the same early talker is refused (the check above can fail)', async () => {
  const { store, bus, close } = await openProjectStore();
  const intake = await createSmtpIntake(
    {
      store,
      bus,
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
      limits: { maxMessageBytes: 1000, maxRecipients: 10, maxMessagesPerInbox: null },
      forwarder: null,
    },
    { host: '127.0.0.1', port: 0, greetingDelayMs: 100 },
  );
  try {
    const smtp = await rawSmtp(intake.port);
    smtp.write('EHLO eager.test\r\n');
    const first = await smtp.reply();
    expect(first.code).toBe(421);
    expect(first.text).toContain('talk too soon');
    smtp.close();
  } finally {
    await intake.close();
    await close();
  }
});

test('an address without an active inbox is refused at RCPT with 550 5.1.1; the domain and the local part match in any case', async () => {
  const inbox = await server.createInbox({ localPart: `Route${Date.now()}` });
  const [local, domain] = inbox.address.split('@') as [string, string];
  const smtp = await rawSmtp(server.smtpPort);
  await smtp.reply();
  await smtp.command('EHLO client.test');
  expect((await smtp.command('MAIL FROM:<app@example.com>')).code).toBe(250);
  const unknown = await smtp.command(`RCPT TO:<nobody-${Date.now()}@${domain}>`);
  expect(unknown.code).toBe(550);
  expect(unknown.text).toContain('5.1.1');
  expect((await smtp.command(`RCPT TO:<${local.toLowerCase()}@${domain}>`)).code).toBe(250);
  expect((await smtp.command(`RCPT TO:<${local.toUpperCase()}@${domain.toUpperCase()}>`)).code).toBe(250);
  await smtp.command('QUIT');
  smtp.close();
});

test('an application that lower-cases addresses (validator\'s normalizeEmail, as Auth.js and express-validator do) reaches an inbox created with capitals', async () => {
  const inbox = await server.createInbox({ localPart: `Alice.Smith${Date.now()}` });
  // What the application does with the address the user typed before it sends mail to it.
  const normalized = validator.normalizeEmail(inbox.address, { all_lowercase: true, gmail_remove_dots: false });
  expect(normalized).toBe(inbox.address.toLowerCase());
  expect(normalized).not.toBe(inbox.address);
  const info = await server.send({ from: 'app@example.com', to: normalized as string, subject: 'Sign in', text: 'your link' });
  expect(info.accepted).toEqual([normalized]);
  const [message] = await server.waitForMessages(inbox, 1);
  expect(message?.subject).toBe('Sign in');
});

test('the 250 after DATA comes only once the message is stored: the API lists it right after, without waiting', async () => {
  const inbox = await server.createInbox();
  const info = await server.send({ from: 'app@example.com', to: inbox.address, subject: 'committed', text: 'hello' });
  expect(info.response).toMatch(/^250 /);
  const items = await server.listMessages(inbox);
  expect(items.map((m) => m.subject)).toEqual(['committed']);
});

test('a message to several inboxes is stored once in each, routed by the envelope and not by the To header', async () => {
  const a = await server.createInbox();
  const b = await server.createInbox();
  const c = await server.createInbox();
  const info = await server.send({
    from: 'app@example.com',
    to: 'someone-else@example.com',
    envelope: { from: 'app@example.com', to: [a.address, b.address, a.address.toUpperCase().replace(/^[^@]+/, a.localPart)] },
    subject: 'fan out',
    text: 'to two inboxes',
  });
  expect(info.accepted.length).toBeGreaterThanOrEqual(2);
  const [inA, inB, inC] = await Promise.all([server.listMessages(a), server.listMessages(b), server.listMessages(c)]);
  expect(inA).toHaveLength(1);
  expect(inB).toHaveLength(1);
  expect(inC).toHaveLength(0);
  expect(inA[0]?.id).not.toBe(inB[0]?.id);
  expect(inA[0]?.to).toEqual([{ address: 'someone-else@example.com', name: '' }]);
});

test('pipelined commands in one write are all answered and the message is stored', async () => {
  const inbox = await server.createInbox();
  const smtp = await rawSmtp(server.smtpPort);
  await smtp.reply();
  await smtp.command('EHLO client.test');
  smtp.write(`MAIL FROM:<app@example.com>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\n`);
  expect((await smtp.reply()).code).toBe(250);
  expect((await smtp.reply()).code).toBe(250);
  expect((await smtp.reply()).code).toBe(354);
  smtp.write('Subject: pipelined\r\n\r\nbody\r\n.\r\n');
  expect((await smtp.reply()).code).toBe(250);
  await smtp.command('QUIT');
  smtp.close();
  expect((await server.listMessages(inbox)).map((m) => m.subject)).toEqual(['pipelined']);
});

test('the 101st recipient of a message is refused with 452 by default', async () => {
  const inboxes = await Promise.all(Array.from({ length: 101 }, () => server.createInbox()));
  const smtp = await rawSmtp(server.smtpPort);
  await smtp.reply();
  await smtp.command('EHLO client.test');
  await smtp.command('MAIL FROM:<app@example.com>');
  const codes: number[] = [];
  for (const inbox of inboxes) codes.push((await smtp.command(`RCPT TO:<${inbox.address}>`)).code);
  expect(codes.slice(0, 100).every((c) => c === 250)).toBe(true);
  expect(codes[100]).toBe(452);
  await smtp.command('QUIT');
  smtp.close();
});

test('a message over the size limit is refused with 552, whether declared with SIZE or sent, and nothing is stored', async () => {
  const small = await startMailServer({ maxMessageBytes: 2000 });
  try {
    const inbox = await small.createInbox();
    const smtp = await rawSmtp(small.smtpPort);
    await smtp.reply();
    const ehlo = await smtp.command('EHLO client.test');
    expect(ehlo.text).toContain('SIZE 2000');
    const declared = await smtp.command('MAIL FROM:<app@example.com> SIZE=5000');
    expect(declared.code).toBe(552);
    expect((await smtp.command('MAIL FROM:<app@example.com> SIZE=500')).code).toBe(250);
    expect((await smtp.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
    expect((await smtp.command('DATA')).code).toBe(354);
    smtp.write(`Subject: too big\r\n\r\n${'x'.repeat(76)}\r\n`.repeat(60) + '.\r\n');
    const result = await smtp.reply();
    expect(result.code).toBe(552);
    // The session goes on: a small message afterwards is accepted.
    await smtp.command('MAIL FROM:<app@example.com>');
    await smtp.command(`RCPT TO:<${inbox.address}>`);
    await smtp.command('DATA');
    smtp.write('Subject: small\r\n\r\nok\r\n.\r\n');
    expect((await smtp.reply()).code).toBe(250);
    await smtp.command('QUIT');
    smtp.close();
    expect((await small.listMessages(inbox)).map((m) => m.subject)).toEqual(['small']);
  } finally {
    await small.close();
  }
});

test('over the messages-per-inbox limit the oldest messages are evicted, the newest kept', async () => {
  const capped = await startMailServer({ maxMessagesPerInbox: 2 });
  try {
    const inbox = await capped.createInbox();
    for (const subject of ['one', 'two', 'three']) {
      await capped.send({ from: 'app@example.com', to: inbox.address, subject, text: subject });
    }
    const items = await capped.listMessages(inbox);
    expect(items.map((m) => [m.seq, m.subject])).toEqual([
      [3, 'three'],
      [2, 'two'],
    ]);
  } finally {
    await capped.close();
  }
});

const smugglingEndings = {
  'LF . LF': '\n.\n',
  'CR . LF': '\r.\n',
  'LF . CRLF': '\n.\r\n',
  'CR . CR': '\r.\r',
  'CRLF . LF': '\r\n.\n',
  'CRLF . CR': '\r\n.\r',
  'LF . CR': '\n.\r',
  'CR . CRLF': '\r.\r\n',
};

for (const [name, fakeEnd] of Object.entries(smugglingEndings)) {
  test(`an SMTP smuggling attempt ending DATA with <${name}> yields exactly one message`, async () => {
    const inbox = await server.createInbox();
    const victim = await server.createInbox();
    const smtp = await rawSmtp(server.smtpPort);
    await smtp.reply();
    await smtp.command('EHLO attacker.test');
    await smtp.command('MAIL FROM:<attacker@example.com>');
    await smtp.command(`RCPT TO:<${inbox.address}>`);
    expect((await smtp.command('DATA')).code).toBe(354);
    smtp.write(
      'Subject: outer\r\n\r\nfirst part' +
        fakeEnd +
        `MAIL FROM:<admin@example.com>\r\nRCPT TO:<${victim.address}>\r\nDATA\r\nSubject: smuggled\r\n\r\ninjected\r\n.\r\n`,
    );
    const first = await smtp.reply();
    expect(first.code).toBe(250);
    // Whatever follows is read as commands of this session, never as a second message.
    smtp.write('QUIT\r\n');
    await Promise.race([smtp.closed, new Promise((r) => setTimeout(r, 2000))]);
    smtp.close();
    const [ours, theirs] = await Promise.all([server.listMessages(inbox), server.listMessages(victim)]);
    expect(theirs).toHaveLength(0);
    expect(ours).toHaveLength(1);
    expect(ours[0]?.subject).toBe('outer');
    const raw = Buffer.from(await (await server.api(`/messages/${ours[0]?.id}/raw`, inbox.token)).arrayBuffer()).toString('latin1');
    // Stored with every line ending normalised to CRLF: no bare CR or LF leaves the service.
    expect(raw).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
    expect(raw).toContain('injected');
  });
}
