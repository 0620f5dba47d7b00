/**
 * `GET /service` (an extension) says where the mail listeners are: SMTP
 * always, IMAP and POP3 when the service runs them.
 */
import { expect, test } from '@playwright/test';
import { startServer } from '../../../src/server/index.ts';

test('GET /service names the SMTP intake, and IMAP and POP3 only when they were started', async () => {
  const plain = await startServer({ port: 0, smtpPort: 0 });
  const mailboxes = await startServer({ port: 0, smtpPort: 0, imapPort: 0, pop3Port: 0 });
  try {
    const read = async (apiUrl: string) => ((await (await fetch(`${apiUrl}/service`)).json()) as { data: unknown }).data;
    expect(await read(plain.apiUrl)).toEqual({ smtp: { host: '127.0.0.1', port: plain.smtpPort }, imap: null, pop3: null });
    expect(await read(mailboxes.apiUrl)).toEqual({
      smtp: { host: '127.0.0.1', port: mailboxes.smtpPort },
      imap: { host: mailboxes.imap?.host, port: mailboxes.imap?.port },
      pop3: { host: mailboxes.pop3?.host, port: mailboxes.pop3?.port },
    });
  } finally {
    await plain.close();
    await mailboxes.close();
  }
});
