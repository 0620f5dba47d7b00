import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inboxkitServer } from '../../../src/playwright/server.ts';

const serverModule = fileURLToPath(new URL('../../../src/playwright/server.ts', import.meta.url));

test('inboxkitServer gives a webServer entry that runs the CLI with this Node.js on the default ports', () => {
  const server = inboxkitServer();
  expect(server.baseUrl).toBe('http://127.0.0.1:8025');
  expect(server.webServer.url).toBe('http://127.0.0.1:8025/api/v1/healthz');
  expect(server.webServer.reuseExistingServer).toBe(false);
  const command = server.webServer.command;
  expect(command.startsWith(process.execPath)).toBe(true);
  const entry = command.split(' ')[1]!;
  expect(entry).toMatch(/src\/cli\/main\.ts$/);
  expect(existsSync(entry)).toBe(true);
  expect(command).toContain('serve --host 127.0.0.1 --port 8025 --smtp-port 2525');
  expect(server.use).toEqual({ inboxkit: { baseUrl: 'http://127.0.0.1:8025' } });
  expect(server.env).toEqual({
    INBOXKIT_BASE_URL: 'http://127.0.0.1:8025',
    INBOXKIT_SMTP_HOST: '127.0.0.1',
    INBOXKIT_SMTP_PORT: '2525',
    INBOXKIT_TWILIO_BASE_URL: 'http://127.0.0.1:8025/sms/twilio',
    INBOXKIT_SNS_ENDPOINT: 'http://127.0.0.1:8025/sms/sns',
    INBOXKIT_VONAGE_REST_HOST: 'http://127.0.0.1:8025/sms/vonage',
    INBOXKIT_SMS_URL: 'http://127.0.0.1:8025/api/v1/sms',
    INBOXKIT_PLIVO_BASE_URL: 'http://127.0.0.1:8025/sms/plivo',
    INBOXKIT_RESEND_BASE_URL: 'http://127.0.0.1:8025/email/resend',
    INBOXKIT_SENDGRID_BASE_URL: 'http://127.0.0.1:8025/email/sendgrid',
    INBOXKIT_POSTMARK_REQUEST_HOST: '127.0.0.1:8025/email/postmark',
    INBOXKIT_SES_ENDPOINT: 'http://127.0.0.1:8025/email/ses',
    INBOXKIT_MAILGUN_URL: 'http://127.0.0.1:8025/email/mailgun',
  });
});

test('inboxkitServer passes ports, extra arguments and reuseExistingServer through, quoting what the shell would split', () => {
  const server = inboxkitServer({ port: 18025, smtpPort: 12525, args: ['--domain', 'acme.test', '--log-level', 'it is'], reuseExistingServer: true });
  expect(server.webServer.command).toContain("--port 18025 --smtp-port 12525 --domain acme.test --log-level 'it is'");
  expect(server.webServer.reuseExistingServer).toBe(true);
  expect(server.env.INBOXKIT_SMTP_PORT).toBe('12525');
  expect(server.smtpPort).toBe(12525);
});

test('inboxkitServer passes spamCheck to the service as --spam-check, and gives none without it', () => {
  const server = inboxkitServer({ port: 18025, smtpPort: 12525, spamCheck: 'spamd://127.0.0.1:783', args: ['--domain', 'acme.test'] });
  expect(server.webServer.command).toMatch(/ serve --host 127\.0\.0\.1 --port 18025 --smtp-port 12525 --spam-check spamd:\/\/127\.0\.0\.1:783 --domain acme\.test$/);
  expect(inboxkitServer({ port: 18025, smtpPort: 12525 }).webServer.command).not.toContain('--spam-check');
});

test('inboxkitServer({ domain }) starts the service with that domain first and points the fixtures at it; a malformed one is refused', () => {
  const server = inboxkitServer({ port: 18025, smtpPort: 12525, domain: 'Acme.Example.org', args: ['--domain', 'second.example.org'] });
  expect(server.webServer.command).toMatch(/ --smtp-port 12525 --domain acme\.example\.org --domain second\.example\.org$/);
  expect(server.use).toEqual({ inboxkit: { baseUrl: 'http://127.0.0.1:18025', domain: 'acme.example.org' } });
  for (const bad of ['user@acme.example.org', 'https://acme.example.org', 'localhost', '-acme.example.org', '']) {
    expect(() => inboxkitServer({ domain: bad }), bad).toThrow(/inboxkitServer: domain .* is not a domain name; give one like "inboxkit\.example\.com"/);
  }
});

test('port 0 gives two servers that differ only in spamCheck ports of their own', () => {
  const args = ['--domain', `spam-${process.pid}-${Date.now()}.test`]; // options of their own, so no earlier pick is reused
  const plain = inboxkitServer({ port: 0, smtpPort: 0, args });
  const scanned = inboxkitServer({ port: 0, smtpPort: 0, args, spamCheck: 'spamd://127.0.0.1:783' });
  expect(scanned.webServer.command).toContain('--spam-check spamd://127.0.0.1:783');
  expect(scanned.baseUrl).not.toBe(plain.baseUrl);
  expect(scanned.smtpPort).not.toBe(plain.smtpPort);
});

test('an IPv6 host is bracketed in URLs but not in the SMTP host', () => {
  const server = inboxkitServer({ host: '::1' });
  expect(server.baseUrl).toBe('http://[::1]:8025');
  expect(server.env.INBOXKIT_SMTP_HOST).toBe('::1');
});

test('inboxkitServer refuses ports out of range and equal ports with advice', () => {
  expect(() => inboxkitServer({ port: 70_000 })).toThrow(/port is 70000; give a port from 1 to 65535, or 0 for a free one/);
  expect(() => inboxkitServer({ smtpPort: -1 })).toThrow(/smtpPort is -1; give a port from 1 to 65535, or 0 for a free one/);
  expect(() => inboxkitServer({ port: 2525 })).toThrow(/both 2525; give the HTTP API and the SMTP intake different ports/);
});

test('port 0 picks free ports when the config loads, and a worker loading the same config gets the same ones', async () => {
  const args = ['--domain', `zero-${process.pid}-${Date.now()}.test`]; // options of their own, so no earlier pick is reused
  const server = inboxkitServer({ port: 0, smtpPort: 0, args });
  expect(server.smtpPort).toBeGreaterThan(0);
  const port = Number(new URL(server.baseUrl).port);
  expect(port).toBeGreaterThan(0);
  expect(port).not.toBe(server.smtpPort);
  expect(server.webServer.command).toContain(`--port ${port} --smtp-port ${server.smtpPort}`);
  expect(server.env.INBOXKIT_SMTP_PORT).toBe(String(server.smtpPort));
  // A worker is a new process with the runner's environment: it loads the config again and must agree.
  const again = spawnSync(process.execPath, ['-e', `import(${JSON.stringify(pathToFileURL(serverModule).href)}).then((m) => process.stdout.write(m.inboxkitServer({ port: 0, smtpPort: 0, args: ${JSON.stringify(args)} }).baseUrl))`], {
    env: process.env,
    encoding: 'utf8',
  });
  expect(again.stderr).toBe('');
  expect(again.stdout).toBe(server.baseUrl);
  // And the port is really free: a server can listen on it.
  const listener = createServer();
  await new Promise<void>((resolve, reject) => listener.once('error', reject).listen(port, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

test('inboxkitServer({ imapPort, pop3Port }) serves them and hands the app their host and port; port 0 picks free ones', () => {
  const server = inboxkitServer({ port: 18025, smtpPort: 12525, imapPort: 11143, pop3Port: 11110 });
  expect(server.webServer.command).toContain('--smtp-port 12525 --imap-port 11143 --pop3-port 11110');
  expect(server.env).toMatchObject({ INBOXKIT_IMAP_HOST: '127.0.0.1', INBOXKIT_IMAP_PORT: '11143', INBOXKIT_POP3_HOST: '127.0.0.1', INBOXKIT_POP3_PORT: '11110' });
  expect(inboxkitServer().env).not.toHaveProperty('INBOXKIT_IMAP_PORT');

  const picked = inboxkitServer({ port: 0, smtpPort: 0, imapPort: 0, args: ['--domain', `imap-${process.pid}-${Date.now()}.test`] });
  const imapPort = Number(picked.env.INBOXKIT_IMAP_PORT);
  expect(imapPort).toBeGreaterThan(0);
  expect(new Set([imapPort, picked.smtpPort, Number(new URL(picked.baseUrl).port)]).size).toBe(3);
  expect(picked.webServer.command).toContain(`--imap-port ${imapPort}`);
  expect(picked.env).not.toHaveProperty('INBOXKIT_POP3_PORT');
  expect(() => inboxkitServer({ imapPort: 70_000 })).toThrow(/imapPort is 70000/);
});
