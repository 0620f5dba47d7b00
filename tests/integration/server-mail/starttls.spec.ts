import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { createSmtpIntake } from '../../../src/server/smtp/intake.ts';
import { openProjectStore } from '../../support/backends.ts';
import { expect, rawSmtp, test } from './harness.ts';

// A self-signed certificate made for these tests only (CN=localhost, 127.0.0.1).
const tls = {
  key: readFileSync(new URL('./tls/test-key.pem', import.meta.url)),
  cert: readFileSync(new URL('./tls/test-cert.pem', import.meta.url)),
};

/** A store with one inbox, and the SMTP intake in front of it (closed with `close()`). */
async function intakeWithInbox(domainName: string, localPart: string, tlsPair?: typeof tls) {
  const { store, bus, close: closeStore } = await openProjectStore();
  const [domain] = await store.syncDomains([domainName]);
  const inbox = await store.createInbox({ localPart, domainId: domain!.id, ownerUserId: null, label: null, tokenHash: localPart, createdAt: Date.now(), expiresAt: null });
  if (inbox === 'address_taken') throw new Error('unexpected');
  const intake = await createSmtpIntake(
    {
      store,
      bus,
      logger: pino({ level: 'silent' }),
      now: () => Date.now(),
      limits: { maxMessageBytes: 100_000, maxRecipients: 10, maxMessagesPerInbox: null },
      forwarder: null,
    },
    { host: '127.0.0.1', port: 0, ...(tlsPair ? { tls: tlsPair } : {}) },
  );
  return {
    store,
    inbox,
    port: intake.port,
    close: async () => {
      await intake.close();
      await closeStore();
    },
  };
}

test('with a certificate, STARTTLS is offered and mail sent over it is stored', async () => {
  const { store, inbox, port, close } = await intakeWithInbox('tls.test', 'secure', tls);
  try {
    const smtp = await rawSmtp(port);
    await smtp.reply();
    const ehlo = await smtp.command('EHLO client.test');
    expect(ehlo.text.split('\n')).toContain('STARTTLS');
    expect(ehlo.text).not.toMatch(/AUTH/);
    smtp.close();

    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
    const info = await transport.sendMail({ from: 'app@example.com', to: 'secure@tls.test', subject: 'over TLS', text: 'encrypted' });
    transport.close();
    expect(info.response).toMatch(/^250 /);
    const page = await store.listMessages(inbox.id, { cursor: null, limit: 10 });
    expect(page.items.map((m) => m.subject)).toEqual(['over TLS']);
  } finally {
    await close();
  }
});

test('SMTPUTF8: an internationalised sender and raw UTF-8 headers are accepted and read', async () => {
  const { store, inbox, port, close } = await intakeWithInbox('utf8.test', 'intl');
  try {
    const smtp = await rawSmtp(port);
    await smtp.reply();
    await smtp.command('EHLO client.test');
    expect((await smtp.command('MAIL FROM:<jürgen@bücher.example> SMTPUTF8 BODY=8BITMIME')).code).toBe(250);
    expect((await smtp.command('RCPT TO:<intl@UTF8.test>')).code).toBe(250);
    expect((await smtp.command('DATA')).code).toBe(354);
    smtp.write(Buffer.from('From: Jürgen <jürgen@bücher.example>\r\nSubject: Grüße aus Köln\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nÄpfel\r\n.\r\n', 'utf8'));
    expect((await smtp.reply()).code).toBe(250);
    await smtp.command('QUIT');
    smtp.close();
    const [summary] = (await store.listMessages(inbox.id, { cursor: null, limit: 1 })).items;
    expect(summary).toMatchObject({ subject: 'Grüße aus Köln', from: { address: 'jürgen@bücher.example', name: 'Jürgen' }, preview: 'Äpfel' });
  } finally {
    await close();
  }
});
