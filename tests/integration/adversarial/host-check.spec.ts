/**
 * DNS rebinding (issue 31, finding 5): a service bound to loopback answers
 * only requests whose `Host` is a loopback name or one the operator allowed,
 * and takes the operator token only from a loopback `Host` and `Origin`.
 * Real HTTP over loopback, with the `Host` and `Origin` a rebinding page's
 * browser would send.
 */
import http from 'node:http';
import { test, expect } from './helpers.ts';
import type { Harness } from './helpers.ts';

const OPERATOR = `tmo_${'o'.repeat(32)}`;

/** A GET with exactly these headers (fetch would not let a test set `Host`). */
function get(h: Harness, path: string, headers: Record<string, string>): Promise<{ status: number; body: { error?: { code: string; message: string }; data?: unknown } }> {
  const url = new URL(`${h.server.apiUrl}${path}`);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as never }));
    });
    req.on('error', reject);
    req.end();
  });
}

test.describe('bound to loopback', () => {
  test.use({ harnessOptions: { operatorToken: OPERATOR, allowedHosts: ['devbox.internal', 'tunnel.example:9000'] } });

  test('a request whose Host is not a loopback name is refused with 403 host_not_allowed before its credential is read', async ({ harness }) => {
    const port = new URL(harness.server.url).port;
    for (const host of [`evil.example:${port}`, 'evil.example', `attacker.localhost.evil.example:${port}`, `10.0.0.5:${port}`, `tunnel.example:${port}`]) {
      const res = await get(harness, '/inboxes', { host, authorization: `Bearer ${OPERATOR}` });
      expect(res.status, host).toBe(403);
      expect(res.body.error?.code).toBe('host_not_allowed');
      expect(res.body.error?.message).toContain('--allowed-host');
    }
    // An invalid token is not told apart from a valid one under a foreign Host.
    expect((await get(harness, '/inboxes', { host: 'evil.example', authorization: 'Bearer tmo_wrongwrongwrongwrong' })).body.error?.code).toBe('host_not_allowed');
  });

  test('loopback names on any port, and the allowed hosts, are answered', async ({ harness }) => {
    const port = new URL(harness.server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, `app.localhost:${port}`, 'localhost:9000', `devbox.internal:${port}`, 'tunnel.example:9000']) {
      expect((await get(harness, '/domains', { host })).status, host).toBe(200);
    }
  });

  test('the operator token is refused from a foreign Origin or an allowed non-loopback Host, and accepted from the viewer\'s own origin', async ({ harness }) => {
    const port = new URL(harness.server.url).port;
    const host = `127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${OPERATOR}` };
    expect((await get(harness, '/inboxes', { host, ...auth })).status).toBe(200);
    expect((await get(harness, '/inboxes', { host, ...auth, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await get(harness, '/inboxes', { host, ...auth, origin: 'http://localhost:5173' })).status).toBe(200);
    for (const origin of ['http://evil.example', 'null', `http://evil.example:${port}`]) {
      const res = await get(harness, '/inboxes', { host, ...auth, origin });
      expect(res.status, origin).toBe(403);
      expect(res.body.error?.message).toContain('operator token');
    }
    expect((await get(harness, '/inboxes', { host: `devbox.internal:${port}`, ...auth })).status).toBe(403);
    // Other credentials from an allowed host are fine.
    const inbox = await harness.createInbox();
    expect((await get(harness, `/inboxes/${inbox.id}`, { host: `devbox.internal:${port}`, 'x-inbox-token': inbox.token })).status).toBe(200);
  });
});

test.describe('bound to every interface', () => {
  test.use({ harnessOptions: { host: '0.0.0.0' } });

  test('any Host is answered (the operator must protect a network-facing service otherwise)', async ({ harness }) => {
    expect((await get(harness, '/domains', { host: 'inboxkit.example.com' })).status).toBe(200);
  });
});
