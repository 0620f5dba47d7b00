/**
 * The client and server examples of the guides (docs/client.md, docs/local-service.md),
 * run as they are printed there (tests/unit/readme.spec.ts checks that the pages quote these regions).
 */
import { test, expect } from '@playwright/test';
import nodemailer from 'nodemailer';
import { createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';

test('the client guide\'s example receives a mail, follows its link and lists the inbox', async () => {
  const server = await startServer();
  const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true });
  const sendMail = (to: string, subject: string, html: string) => transport.sendMail({ from: 'app@example.com', to, subject, html });
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };
  try {
    // #region client
    const client = createClient({ baseUrl: server.url });
    const inbox = await client.inboxes.create({ label: 'sign-up test' });

    await sendMail(inbox.address, 'Welcome', '<a href="https://app.example/confirm?t=1&amp;u=2">Confirm</a>');

    const message = await inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 10_000 });
    console.log(message.link('Confirm').href); // https://app.example/confirm?t=1&u=2

    for await (const summary of inbox.messages()) console.log(summary.seq, summary.subject);
    const { response } = await client.domains.list().withResponse();
    console.log('requests left this minute:', response.rateLimit?.remaining);

    await inbox.delete();
    await client.close();
    // #endregion
    expect(logged[0]).toEqual(['https://app.example/confirm?t=1&u=2']);
    expect(logged[1]).toEqual([1, 'Welcome']);
    expect(logged[2]?.[0]).toBe('requests left this minute:');
    expect(typeof logged[2]?.[1]).toBe('number');
  } finally {
    transport.close();
    await server.close();
  }
});

test('the local service guide\'s example starts and stops the service on free ports', async () => {
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };
  // #region server
  const server = await startServer({ domains: ['example.test'], smtpPort: 0 });
  console.log(server.apiUrl, server.smtpHost, server.smtpPort);
  await server.close();
  // #endregion
  expect(logged[0]?.[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
  expect(logged[0]?.[2]).toBeGreaterThan(0);
});
