/**
 * What the web viewer needs from the API, as inboxkit extensions: the operator
 * token, `GET /me/events`, `q` on the message list, and the viewer's files at `/`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { get } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createParser } from 'eventsource-parser';
import nodemailer from 'nodemailer';
import { buildViewer } from '../../../scripts/build-viewer.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { spawnServe } from '../../support/serve.ts';
import { KEY_A, KEY_B, apiOf, expect, expectError, test } from './fixtures.ts';

const OPERATOR = `tmo_${'o'.repeat(32)}`;
test.use({ serverOptions: { operatorToken: OPERATOR } });

async function send(server: RunningServer, mail: { to: string; subject: string; text: string; from?: string }): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: 'Acme <no-reply@acme.example>', ...mail });
  } finally {
    transport.close();
  }
}

/** Reads `GET /me/events` in the background; `until` waits for an event that matches. */
async function listen(server: RunningServer, headers: Record<string, string>) {
  const controller = new AbortController();
  const events: Array<{ event: string; data: unknown }> = [];
  const waiters: Array<() => void> = [];
  const res = await fetch(`${server.apiUrl}/me/events`, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  const parser = createParser({
    onEvent: (e) => {
      events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) });
      for (const wake of waiters.splice(0)) wake();
    },
  });
  void (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  })().catch(() => {});
  return {
    events,
    async until(predicate: (e: { event: string; data: unknown }) => boolean) {
      while (!events.some(predicate)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () => controller.abort(),
  };
}

test('the operator token sees every inbox, guests\' and users\' alike, and a wrong one is refused', async ({ server, api }) => {
  const guest = await api('POST', '/inboxes', { body: { label: 'guest' } });
  const owned = await api('POST', '/inboxes', { bearer: KEY_A, body: { label: 'user' } });
  const list = await api('GET', '/inboxes', { bearer: OPERATOR });
  expect(list.status).toBe(200);
  expect(list.body.data.items.map((i: { id: string }) => i.id)).toEqual([owned.body.data.id, guest.body.data.id]);
  expect((await api('GET', `/inboxes/${guest.body.data.id}`, { bearer: OPERATOR })).status).toBe(200);
  expect((await api('GET', '/me', { bearer: OPERATOR })).body.data.credential).toBe('operator');

  const wrong = await api('GET', '/inboxes', { bearer: `tmo_${'x'.repeat(32)}` });
  expectError(wrong, 401, 'unauthorized');
  expect(wrong.body.error.message).toContain('operator token');
  expect(server.viewerUrl).toBe(`${server.url}/#key=${OPERATOR}`);
});

test('a service without an operator token refuses every tmo_ credential, and one bound beyond loopback may not have one', async () => {
  const plain = await startServer();
  try {
    expectError(await apiOf(plain)('GET', '/inboxes', { bearer: OPERATOR }), 401, 'unauthorized');
    expect(plain.viewerUrl).toBe(`${plain.url}/`);
  } finally {
    await plain.close();
  }
  await expect(startServer({ host: '0.0.0.0', operatorToken: OPERATOR })).rejects.toThrow(/operatorToken needs the HTTP server bound to loopback/);
  await expect(startServer({ operatorToken: 'tmo_short' })).rejects.toThrow(/operatorToken must be "tmo_"/);
});

test('q filters an inbox\'s messages by subject, sender, recipient and text, literally and across pages', async ({ server, api }) => {
  const inbox = (await api('POST', '/inboxes')).body.data;
  await send(server, { to: inbox.address, subject: 'Invoice 100% paid', text: 'thanks' });
  await send(server, { to: inbox.address, subject: 'Hello', text: 'the parcel is with the courier', from: 'Shipping <ship@parcels.example>' });
  await send(server, { to: inbox.address, subject: 'Reset', text: 'reset-link inside' });
  const search = async (q: string, extra = '') =>
    (await api('GET', `/inboxes/${inbox.id}/messages?q=${encodeURIComponent(q)}${extra}`, { inboxToken: inbox.token })).body.data;
  const subjects = async (q: string) => (await search(q)).items.map((m: { subject: string }) => m.subject);

  expect(await subjects('COURIER')).toEqual(['Hello']);
  expect(await subjects('parcels.example')).toEqual(['Hello']);
  expect(await subjects(inbox.address)).toEqual(['Reset', 'Hello', 'Invoice 100% paid']);
  expect(await subjects('100%')).toEqual(['Invoice 100% paid']);
  // % and _ match themselves, not any text.
  expect(await subjects('%')).toEqual(['Invoice 100% paid']);
  expect(await subjects('reset_link')).toEqual([]);
  expect(await subjects('reset-link')).toEqual(['Reset']);
  const first = await search(inbox.address, '&limit=2');
  expect(first.items).toHaveLength(2);
  const second = await search(inbox.address, `&limit=2&cursor=${first.nextCursor}`);
  expect(second.items.map((m: { subject: string }) => m.subject)).toEqual(['Invoice 100% paid']);
  expect(second.nextCursor).toBeNull();
});

test('GET /me/events tells each caller about the inboxes it can see, and nothing about the others', async ({ server, api }) => {
  const userA = await listen(server, { authorization: `Bearer ${KEY_A}` });
  const operator = await listen(server, { authorization: `Bearer ${OPERATOR}` });
  const existing = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
  const guestInbox = (await api('POST', '/inboxes')).body.data;
  const guest = await listen(server, { 'x-inbox-token': guestInbox.token });
  try {
    const ofB = (await api('POST', '/inboxes', { bearer: KEY_B })).body.data;
    const ofA = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data;
    await userA.until((e) => e.event === 'inbox.created' && (e.data as { id: string }).id === ofA.id);
    await send(server, { to: ofB.address, subject: 'for B', text: 'b' });
    await send(server, { to: guestInbox.address, subject: 'for the guest', text: 'g' });
    await send(server, { to: existing.address, subject: 'for A', text: 'a' });
    await userA.until((e) => e.event === 'message');
    await api('DELETE', `/inboxes/${ofB.id}`, { bearer: KEY_B });
    await api('DELETE', `/inboxes/${existing.id}`, { bearer: KEY_A });
    await userA.until((e) => e.event === 'inbox.deleted');
    await operator.until((e) => e.event === 'inbox.deleted' && (e.data as { inboxId: string }).inboxId === existing.id);
    await guest.until((e) => e.event === 'message');

    const mentions = (events: Array<{ data: unknown }>, id: string) => events.some((e) => JSON.stringify(e.data).includes(id));
    expect(userA.events.map((e) => e.event)).toEqual(['ready', 'inbox.created', 'inbox.created', 'message', 'inbox.deleted']);
    expect(mentions(userA.events, ofB.id) || mentions(userA.events, guestInbox.id)).toBe(false);
    expect((userA.events[3]!.data as { message: { subject: string } }).message.subject).toBe('for A');
    expect(mentions(operator.events, ofB.id) && mentions(operator.events, guestInbox.id) && mentions(operator.events, ofA.id)).toBe(true);
    expect(guest.events.map((e) => e.event)).toEqual(['ready', 'message']);
    expect(mentions(guest.events, ofB.id) || mentions(guest.events, ofA.id)).toBe(false);
  } finally {
    userA.close();
    operator.close();
    guest.close();
  }
});

/** A GET with exactly these request headers (fetch always asks for gzip), the body as it came. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

test('the viewer is served at / with a strict policy, its files under /viewer/, and a page saying how to build it when it is missing', async () => {
  const assets = await mkdtemp(join(tmpdir(), 'inboxkit-viewer-assets-'));
  await buildViewer(assets);
  const built = await startServer({ viewerAssetsDir: assets });
  const missing = await startServer({ viewerAssetsDir: join(assets, 'nothing-here') });
  try {
    const page = await fetch(`${built.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('<script type="module" src="/viewer/viewer.js">');
    const script = await fetch(`${built.url}/viewer/viewer.js`);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    // The parts stored gzipped: sent gzipped to a caller that accepts it, decompressed to one that does not.
    const gz = await rawGet(`${built.url}/viewer/email-clients.js`, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    const plain = await rawGet(`${built.url}/viewer/email-clients.js`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(plain.body.toString('utf8')).toContain('caniemail');
    expect(plain.body.length).toBeGreaterThan(gz.body.length * 3);
    expect((await fetch(`${built.url}/viewer/package.json`)).status).toBe(404);
    expect((await fetch(`${built.url}/viewer/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${built.url}/api/v1/domains`)).status).toBe(200);

    const absent = await fetch(`${missing.url}/`);
    expect(absent.status).toBe(503);
    expect(await absent.text()).toContain('npm run build');
  } finally {
    await built.close();
    await missing.close();
    await rm(assets, { recursive: true, force: true });
  }
});

test('the OpenAPI document describes the viewer\'s extensions: /me/events and q', async ({ api }) => {
  const doc = (await api('GET', '/openapi.json')).body;
  expect(doc.paths['/me/events'].get['x-inboxkit-extension']).toBe(true);
  expect(doc.paths['/me/events'].get.responses['200'].content).toHaveProperty('text/event-stream');
  const q = doc.paths['/inboxes/{id}/messages'].get.parameters.find((p: { name: string }) => p.name === 'q');
  expect(q.in).toBe('query');
  expect(q.schema['x-inboxkit-extension'] ?? q['x-inboxkit-extension']).toBe(true);
});

test('inboxkit serve prints the viewer URL with a new operator token in its banner and ready line, and --no-operator-token leaves it out', async () => {
  const stopped: Array<Promise<unknown>> = [];
  const serve = async (args: string[]) => {
    const served = await spawnServe(args);
    stopped.push(new Promise((resolve) => served.child.once('exit', resolve)));
    return served;
  };
  const first = await serve([]);
  const second = await serve(['--no-operator-token']);
  try {
    const viewerUrl = (first.ready as typeof first.ready & { viewerUrl: string }).viewerUrl;
    expect(viewerUrl).toMatch(new RegExp(`^${first.ready.url}/#key=tmo_[A-Za-z0-9_-]{43}$`));
    expect(first.output()).toContain(`viewer    ${viewerUrl}`);
    const token = viewerUrl.split('#key=')[1]!;
    const res = await fetch(`${first.ready.apiUrl}/inboxes`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect((second.ready as typeof second.ready & { viewerUrl: string }).viewerUrl).toBe(`${second.ready.url}/`);
    expect(second.output()).not.toContain('tmo_');
  } finally {
    first.child.kill('SIGTERM');
    second.child.kill('SIGTERM');
    await Promise.all(stopped);
  }
});
