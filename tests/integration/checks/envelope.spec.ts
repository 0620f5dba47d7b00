/**
 * The SMTP envelope recorded at intake (issue 30): MAIL FROM, the RCPT TO
 * addresses of the message's own inbox, the client's address and its HELO name,
 * exposed as `message.envelope` over a real SMTP conversation.
 */
import nodemailer from 'nodemailer';
import { test, expect } from '../client/fixtures.ts';

test.describe('message envelope', () => {
  test('a message carries MAIL FROM, its own RCPT TO, the client address and the HELO name', async ({ guest, server }) => {
    const inbox = await guest.inboxes.create();
    const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true, name: 'app.acme.example' });
    await transport.sendMail({ envelope: { from: 'bounces+42@mailer.acme.example', to: [inbox.address] }, from: 'Acme <hello@acme.example>', to: 'someone@else.example', subject: 'Envelope', text: 'hi' });
    transport.close();
    const message = await inbox.waitForMessage({ subject: 'Envelope' }, { timeout: 10_000 });
    // #region envelope
    expect(message.envelope).toEqual({ mailFrom: 'bounces+42@mailer.acme.example', rcptTo: [inbox.address], clientAddress: '127.0.0.1', helo: 'app.acme.example' });
    // #endregion
  });

  test('a message sent to two inboxes shows each inbox only its own recipient (a Bcc stays hidden)', async ({ guest, send }) => {
    const first = await guest.inboxes.create();
    const second = await guest.inboxes.create();
    await send({ envelope: { from: '', to: [first.address, second.address] }, to: first.address, subject: 'Two', text: 'hi' });
    const [a, b] = await Promise.all([first.waitForMessage({ subject: 'Two' }, { timeout: 10_000 }), second.waitForMessage({ subject: 'Two' }, { timeout: 10_000 })]);
    expect(a.envelope?.rcptTo).toEqual([first.address]);
    expect(b.envelope?.rcptTo).toEqual([second.address]);
    expect(a.envelope?.mailFrom).toBe('');
  });
});
