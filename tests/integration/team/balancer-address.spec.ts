/**
 * A client behind the balancer is capped by its own address (issue 40): Debian's
 * HAProxy, with the guide's configuration (docs/team-service/haproxy.cfg), in
 * front of one node. Two clients reach HAProxy from two loopback addresses,
 * 127.0.0.2 and 127.0.0.3; the node sees only HAProxy's 127.0.0.1, yet each
 * client gets its own per-address SMTP connection cap and HTTP caps, and the
 * stored envelope names the client. A client's own X-Forwarded-For is never believed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { test, expect } from '@playwright/test';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { freePort, render, waitFor } from '../../support/team.ts';
import { RawSmtp } from '../adversarial/helpers.ts';

const HAPROXY = '/usr/sbin/haproxy';
const ALICE = '127.0.0.2';
const BOB = '127.0.0.3';
/** Makes the inbox of the SMTP test, so Alice's and Bob's guest-inbox places stay free for the HTTP test. */
const CAROL = '127.0.0.4';

test.skip(!existsSync(HAPROXY), `needs Debian's HAProxy at ${HAPROXY} (apt-get install haproxy; .ci/run installs it)`);
test.describe.configure({ mode: 'serial' });

/** An HTTP request from a chosen local address; resolves with the response once its head arrived (a stream stays open). */
function from(localAddress: string, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', localAddress, headers: options.headers }, resolve);
    req.on('error', reject);
    req.end(options.body);
  });
}

async function json(res: IncomingMessage): Promise<{ data?: Record<string, unknown>; error?: { code: string; message: string } }> {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  return JSON.parse(text) as { data?: Record<string, unknown>; error?: { code: string; message: string } };
}

let node: RunningServer;
let haproxy: ChildProcess;
let dir: string;
let http: string;
let smtpPort: number;

test.beforeAll(async () => {
  node = await startServer({
    port: 0,
    smtpPort: 0,
    domains: ['team.test'],
    smtpProxy: ['127.0.0.1'],
    trustProxy: ['127.0.0.1'],
    smtpMaxConnectionsPerAddress: 1,
    maxGuestInboxesPerAddress: 1,
    maxStreamsPerAddress: 1,
  });
  dir = mkdtempSync(join(tmpdir(), 'inboxkit-balancer-'));
  const httpPort = await freePort();
  smtpPort = await freePort();
  writeFileSync(join(dir, 'haproxy.cfg'), render('haproxy.cfg', {
    BALANCER_HTTP_PORT: String(httpPort),
    BALANCER_SMTP_PORT: String(smtpPort),
    BALANCER_STATS_PORT: String(await freePort()),
    HTTP_SERVERS: `    server node1 127.0.0.1:${new URL(node.url).port} check`,
    SMTP_SERVERS: `    server node1 127.0.0.1:${node.smtpPort} send-proxy check port ${new URL(node.url).port}`,
  }));
  haproxy = spawn(HAPROXY, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
  http = `http://127.0.0.1:${httpPort}`;
  await waitFor(async () => (await fetch(`${http}/readyz`)).status === 200, 'HAProxy to send to the ready node');
});

test.afterAll(async () => {
  haproxy?.kill('SIGTERM');
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('each client behind HAProxy has its own SMTP connection cap, and the stored envelope names it, not HAProxy', async () => {
  const alice = await RawSmtp.connect(smtpPort, '127.0.0.1', { localAddress: ALICE });
  try {
    expect((await alice.reply()).code).toBe(220);
    // Alice's second connection passes her cap of 1: refused, naming her address.
    const again = await RawSmtp.connect(smtpPort, '127.0.0.1', { localAddress: ALICE });
    const refused = await again.reply();
    expect(refused.code).toBe(421);
    expect(refused.text).toContain(`from your address ${ALICE}: the cap is 1`);

    // Bob, behind the same balancer, is served while Alice holds her place; his mail records his address.
    const inbox = await json(await from(CAROL, `${http}/api/v1/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    const { id, address, token } = inbox.data as { id: string; address: string; token: string };
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, localAddress: BOB } as never);
    await transport.sendMail({ from: 'app@example.com', to: address, subject: 'through the balancer', text: 'hello' });
    transport.close();
    const listed = await json(await from(CAROL, `${http}/api/v1/inboxes/${id}/messages`, { headers: { 'x-inbox-token': token } }));
    const [summary] = listed.data!.items as Array<{ id: string }>;
    const message = await json(await from(CAROL, `${http}/api/v1/messages/${summary!.id}`, { headers: { 'x-inbox-token': token } }));
    expect((message.data as { envelope: { clientAddress: string } }).envelope.clientAddress).toBe(BOB);
  } finally {
    alice.end();
  }
});

test('with --trust-proxy, HTTP caps behind HAProxy count each client, and a client cannot pick its address with X-Forwarded-For', async () => {
  const create = (who: string, headers: Record<string, string> = {}) =>
    from(who, `${http}/api/v1/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  // One guest inbox per address: Alice's second is refused naming her address; Bob still gets one.
  const first = await create(ALICE);
  expect(first.statusCode).toBe(200);
  const aliceInbox = (await json(first)).data as { id: string; token: string };
  const second = await create(ALICE, { 'x-forwarded-for': '198.51.100.99' });
  expect(second.statusCode).toBe(429);
  expect((await json(second)).error!.message).toContain(ALICE);
  const bob = await create(BOB);
  expect(bob.statusCode).toBe(200);

  // Straight to the node, not through the trusted balancer, the header is ignored: the peer's own address counts.
  const direct = await from(BOB, `${node.apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.5' }, body: '{}' });
  expect(direct.statusCode).toBe(429);
  expect((await json(direct)).error!.message).toContain(BOB);

  // One open event stream per address, on the node behind HAProxy.
  const stream = (who: string) => from(who, `${http}/api/v1/inboxes/${aliceInbox.id}/stream`, { headers: { accept: 'text/event-stream', 'x-inbox-token': aliceInbox.token } });
  const open = await stream(ALICE);
  expect(open.statusCode).toBe(200);
  const more = await stream(ALICE);
  expect(more.statusCode).toBe(429);
  expect((await json(more)).error!.message).toContain(`from ${ALICE}`);
  const bobs = await stream(BOB);
  expect(bobs.statusCode).toBe(200);
  open.destroy();
  bobs.destroy();
});
