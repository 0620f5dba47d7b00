import { expect, test } from '@playwright/test';
import { existsSync } from 'node:fs';
import { inboxkitServer } from '../../../src/playwright/server.ts';

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
  expect(server.env).toEqual({ INBOXKIT_BASE_URL: 'http://127.0.0.1:8025', INBOXKIT_SMTP_HOST: '127.0.0.1', INBOXKIT_SMTP_PORT: '2525' });
});

test('inboxkitServer passes ports, extra arguments and reuseExistingServer through, quoting what the shell would split', () => {
  const server = inboxkitServer({ port: 18025, smtpPort: 12525, args: ['--domain', 'acme.test', '--log-level', 'it is'], reuseExistingServer: true });
  expect(server.webServer.command).toContain("--port 18025 --smtp-port 12525 --domain acme.test --log-level 'it is'");
  expect(server.webServer.reuseExistingServer).toBe(true);
  expect(server.env.INBOXKIT_SMTP_PORT).toBe('12525');
  expect(server.smtpPort).toBe(12525);
});

test('an IPv6 host is bracketed in URLs but not in the SMTP host', () => {
  const server = inboxkitServer({ host: '::1' });
  expect(server.baseUrl).toBe('http://[::1]:8025');
  expect(server.env.INBOXKIT_SMTP_HOST).toBe('::1');
});

test('inboxkitServer refuses port 0 and equal ports with advice', () => {
  expect(() => inboxkitServer({ port: 0 })).toThrow(/port is 0; give a fixed port from 1 to 65535 \(the config must know the URL/);
  expect(() => inboxkitServer({ port: 2525 })).toThrow(/both 2525; give the HTTP API and the SMTP intake different ports/);
});
