/**
 * Every response the server can produce is the JSON error envelope with the
 * rate-limit headers: requests refused by Node's HTTP parser or by the HTTP
 * adapter before the app sees them included. Raw bytes over a real socket.
 */
import net from 'node:net';
import { test, expect, expectError, KEY_A } from './fixtures.ts';
import type { Answer } from './fixtures.ts';

/** Sends raw bytes and reads the whole answer (the server closes, or 2 s pass). */
async function raw(port: number, request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const head = data.indexOf('\r\n\r\n');
      const length = /content-length: *(\d+)/i.exec(data.slice(0, head))?.[1];
      if (head >= 0 && length !== undefined && data.length >= head + 4 + Number(length)) socket.destroy();
    });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(2000, () => socket.destroy());
  });
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

const REFUSED: Array<[string, string | Buffer, number]> = [
  ['no Host header in HTTP/1.1', 'GET /api/v1/domains HTTP/1.1\r\n\r\n', 400],
  ['a Host header that is not a host', 'GET /api/v1/domains HTTP/1.1\r\nHost: exa mple\r\n\r\n', 400],
  ['a Host header with a path in it', 'GET /api/v1/domains HTTP/1.1\r\nHost: a/b\r\n\r\n', 400],
  ['a backslash in the path', 'GET /api\\v1/domains HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ['an absolute-form target with another scheme', 'GET ftp://x/api/v1/domains HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ['a malformed absolute-form target', 'GET http://[bad/api HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ['an unknown method', 'FROB /api/v1/domains HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ['raw non-ASCII bytes in the path', Buffer.from('GET /api/v1/d\xffomains HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'), 400],
  ['headers over 16 KB', `GET /api/v1/domains HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
];

test.describe('requests refused before the app', () => {
  for (const [what, request, status] of REFUSED) {
    test(`${what} gets ${status} with the JSON envelope, a request id and the rate-limit headers`, async ({ server }) => {
      const res = await raw(Number(new URL(server.url).port), request);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(res.body);
      expect(body.error.code).toBe('validation_error');
      expect(body.error.message.length).toBeGreaterThan(20);
      expect(res.headers['x-request-id']).toBe(body.error.requestId);
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers[name], name).toMatch(/^\d+$/);
      expect(res.headers['x-ratelimit-limit']).toBe('6000');
    });
  }

  test('refusals count against the client address\'s allowance like any anonymous request', async ({ server }) => {
    const port = Number(new URL(server.url).port);
    const first = await raw(port, 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n');
    const second = await raw(port, 'FROB / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
  });
});

test.describe('with rate limiting off', () => {
  test.use({ serverOptions: { rateLimit: false } });

  test('a refusal before the app reports the same "off" sentinel as every other answer', async ({ server }) => {
    const res = await raw(Number(new URL(server.url).port), 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n');
    expect([res.status, res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining'], res.headers['x-ratelimit-reset']]).toEqual([400, '0', '0', '0']);
  });
});

test('an API key and an inbox token in one request are a validation_error that names both, whichever would have been allowed', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes', { body: {} })).body.data;
  for (const path of ['/me', `/inboxes/${inbox.id}`, '/inboxes']) {
    const res: Answer = await api('GET', path, { bearer: KEY_A, inboxToken: inbox.token });
    expectError(res, 400, 'validation_error');
    expect(res.body.error.message).toMatch(/Authorization.*X-Inbox-Token/);
  }
});

test('limit is read strictly: only decimal digits from 1 to 100', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes', { body: {} })).body.data;
  for (const limit of ['0x10', '1e1', '+5', '10%20', '%2010', '1.0', '-1', '0', '101', '', 'ten']) {
    for (const path of ['/inboxes', `/inboxes/${inbox.id}/messages`]) {
      const res = await api('GET', `${path}?limit=${limit}`, { inboxToken: inbox.token });
      expectError(res, 400, 'validation_error');
      expect(res.body.error.message, `limit=${limit}`).toContain('limit');
    }
  }
  for (const limit of ['1', '10', '100', '007']) expect((await api('GET', `/inboxes/${inbox.id}/messages?limit=${limit}`, { inboxToken: inbox.token })).status).toBe(200);
});

test('GET /inboxes with an inbox token validates the cursor as it does with an API key', async ({ api }) => {
  const inbox = (await api('POST', '/inboxes', { body: {} })).body.data;
  for (const credential of [{ inboxToken: inbox.token }, { bearer: KEY_A }]) {
    expectError(await api('GET', '/inboxes?cursor=garbage!', credential), 400, 'validation_error');
    expectError(await api('GET', `/inboxes?cursor=${Buffer.from('m:5').toString('base64url')}`, credential), 400, 'validation_error');
  }
  // A well-formed inbox cursor is a page after the one inbox: empty.
  const after = await api('GET', `/inboxes?cursor=${Buffer.from('i:5').toString('base64url')}`, { inboxToken: inbox.token });
  expect(after.body.data).toEqual({ items: [], nextCursor: null });
});
