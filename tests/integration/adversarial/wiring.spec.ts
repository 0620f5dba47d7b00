/**
 * The options the SMTP intake, the stream and the forwarder accept reach them
 * from startServer and from the command line.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { resolveConfig, startServer } from '../../../src/server/index.ts';
import { RawSmtp, expect, openStream, rawMessage, sendRaw, startHarness, test } from './helpers.ts';
import { spawnServe } from '../../support/serve.ts';

const TLS_DIR = new URL('../server-mail/tls/', import.meta.url);
const TLS_KEY = fileURLToPath(new URL('test-key.pem', TLS_DIR));
const TLS_CERT = fileURLToPath(new URL('test-cert.pem', TLS_DIR));
const CLI = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

test('startServer applies documented defaults to the SMTP, stream and forwarding options', async () => {
  const config = resolveConfig({});
  expect(config.smtp).toEqual({ host: '127.0.0.1', port: 0, tls: null, greetingDelayMs: 0, socketTimeoutMs: 60_000, maxConnections: 1000 });
  expect(config.stream).toEqual({ pingIntervalMs: 15_000, maxBufferedBytes: 1024 * 1024 });
  expect(config.forwarding).toEqual({ attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 });
  expect(() => resolveConfig({ smtpSocketTimeoutMs: 0 })).toThrow(/smtpSocketTimeoutMs/);
  expect(() => resolveConfig({ smtpMaxConnections: 0 })).toThrow(/smtpMaxConnections/);
  expect(() => resolveConfig({ smtpTls: { key: '', cert: 'x' } })).toThrow(/smtpTls needs both a key and a cert/);
  expect(() => resolveConfig({ forwarding: { attempts: 0 } })).toThrow(/forwarding\.attempts/);
});

test('smtpTls makes the intake offer STARTTLS; without it STARTTLS is not offered', async () => {
  for (const smtpTls of [{ key: readFileSync(TLS_KEY), cert: readFileSync(TLS_CERT) }, null]) {
    const h = await startHarness({ smtpTls });
    try {
      const smtp = await RawSmtp.connect(h.server.smtpPort);
      const ehlo = await smtp.hello();
      smtp.end();
      expect(ehlo.lines.some((l) => /STARTTLS/.test(l))).toBe(smtpTls !== null);
    } finally {
      await h.close();
    }
  }
});

test('smtpGreetingDelayMs holds the greeting: a client that talks before it is told 421, with no delay it is served', async () => {
  for (const delay of [0, 20_000]) {
    const h = await startHarness({ smtpGreetingDelayMs: delay });
    try {
      const smtp = await RawSmtp.connect(h.server.smtpPort);
      smtp.write('EHLO early.test\r\n');
      const first = await smtp.reply();
      smtp.end();
      if (delay === 0) expect(first.code).toBe(220);
      else expect(first).toMatchObject({ code: 421, text: expect.stringMatching(/talk too soon/i) });
    } finally {
      await h.close();
    }
  }
});

test.describe('with a short SMTP socket timeout and a connection cap', () => {
  test.use({ harnessOptions: { smtpSocketTimeoutMs: 300, smtpMaxConnections: 2 } });

  test('a connection that goes silent is told 421 and closed (smtpSocketTimeoutMs)', async ({ harness }) => {
    const smtp = await RawSmtp.connect(harness.server.smtpPort);
    await smtp.hello();
    const reply = await smtp.reply();
    expect(reply.code).toBe(421);
    expect(reply.text).toMatch(/timeout/i);
    await smtp.closed;
  });

  test('the connection past smtpMaxConnections is told 421 and closed; a place that frees up is served again', async ({ harness }) => {
    const a = await RawSmtp.connect(harness.server.smtpPort);
    const b = await RawSmtp.connect(harness.server.smtpPort);
    expect((await a.reply()).code).toBe(220);
    expect((await b.reply()).code).toBe(220);
    const c = await RawSmtp.connect(harness.server.smtpPort);
    const refused = await c.reply();
    expect(refused.code).toBe(421);
    expect(refused.text).toMatch(/too many/i);
    await c.closed;
    a.write('QUIT\r\n');
    await a.closed;
    const d = await RawSmtp.connect(harness.server.smtpPort);
    expect((await d.reply()).code).toBe(220);
    b.end();
    d.end();
  });
});

test('streamPingIntervalMs sets the keep-alive comment interval of the event stream', async () => {
  const h = await startHarness({ streamPingIntervalMs: 50 });
  const abort = new AbortController();
  try {
    const inbox = await h.createInbox();
    const { status, events } = await openStream(`${h.server.apiUrl}/inboxes/${inbox.id}/stream`, { 'x-inbox-token': inbox.token }, abort.signal);
    expect(status).toBe(200);
    let pings = 0;
    for await (const e of events) {
      if ('comment' in e && e.comment === 'ping') pings++;
      if (pings === 2) break;
    }
    expect(pings).toBe(2);
  } finally {
    abort.abort();
    await h.close();
  }
});

test('forwarding retry settings reach the forwarder: attempts are counted and then given up', async () => {
  // A relay port that refuses: a listener closed again at once.
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const deadPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));

  const h = await startHarness({ relayUrl: `smtp://127.0.0.1:${deadPort}`, forwardAllow: ['elsewhere.test'], forwarding: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
  try {
    const inbox = await h.createInbox();
    const patch = await h.call(`/inboxes/${inbox.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-inbox-token': inbox.token },
      body: JSON.stringify({ forwardTo: 'me@elsewhere.test' }),
    });
    expect(patch.status).toBe(200);
    expect((await sendRaw(h.server.smtpPort, 'a@adversary.test', [inbox.address], rawMessage({ to: inbox.address, subject: 'forward me' }))).code).toBe(250);
    await expect.poll(() => h.logs.find((l) => /giving up/.test(String(l.msg)))?.attempts, { timeout: 10_000 }).toBe(3);
    expect(h.logs.filter((l) => /retrying in/.test(String(l.msg)))).toHaveLength(2);
  } finally {
    await h.close();
  }
});

test('a server that received and served an HTML message closes cleanly, and close() can be called twice', async () => {
  const server = await startServer({ rateLimit: false });
  const h = { url: server.apiUrl };
  const inbox = (await (await fetch(`${h.url}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
    data: { id: string; token: string; address: string };
  };
  const raw = rawMessage({ to: inbox.data.address, subject: 'html', headers: [], body: 'x' }).replace('text/plain', 'text/html');
  expect((await sendRaw(server.smtpPort, 'a@adversary.test', [inbox.data.address], raw)).code).toBe(250);
  const list = (await (await fetch(`${h.url}/inboxes/${inbox.data.id}/messages`, { headers: { 'x-inbox-token': inbox.data.token } })).json()) as {
    data: { items: Array<{ id: string }> };
  };
  const res = await fetch(`${h.url}/messages/${list.data.items[0]!.id}`, { headers: { 'x-inbox-token': inbox.data.token } });
  expect(((await res.json()) as { data: { html: string } }).data.html).toContain('x');
  await server.close();
  await server.close();
});

const run = promisify(execFile);
const running = new Set<ChildProcessWithoutNullStreams>();
test.afterEach(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  running.clear();
});

test('inboxkit serve --help documents the SMTP, stream and forwarding flags', async () => {
  const { stdout } = await run(process.execPath, [CLI, 'serve', '--help']);
  for (const flag of [
    '--smtp-tls-key',
    '--smtp-tls-cert',
    '--smtp-greeting-delay',
    '--smtp-timeout',
    '--smtp-max-connections',
    '--stream-ping-interval',
    '--stream-max-buffer',
    '--forward-attempts',
    '--forward-retry-delay',
    '--forward-max-retry-delay',
  ]) {
    expect(stdout).toContain(flag);
  }
});

test('inboxkit serve refuses a bad duration, a connection cap of 0 and half a TLS pair, naming the flag', async () => {
  for (const [args, pattern] of [
    [['--smtp-timeout', 'soon'], /--smtp-timeout must be a duration/],
    [['--smtp-max-connections', '0'], /--smtp-max-connections must be a whole number/],
    [['--smtp-tls-key', TLS_KEY], /needs both --smtp-tls-key and --smtp-tls-cert/],
    [['--smtp-tls-key', '/nonexistent/key.pem', '--smtp-tls-cert', TLS_CERT], /--smtp-tls-key: cannot read/],
  ] as const) {
    const result = await run(process.execPath, [CLI, 'serve', '--port', '0', '--smtp-port', '0', ...args]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(pattern);
  }
});

test('inboxkit serve passes the SMTP flags through: STARTTLS offered, the connection past the cap refused, an idle one timed out', async () => {
  const child = spawn(process.execPath, [
    CLI, 'serve', '--port', '0', '--smtp-port', '0',
    '--smtp-tls-key', TLS_KEY, '--smtp-tls-cert', TLS_CERT,
    '--smtp-max-connections', '1', '--smtp-timeout', '400ms', '--stream-ping-interval', '1s',
  ]);
  running.add(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ready = await new Promise<{ smtpPort: number }>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('INBOXKIT_READY '));
      if (line) resolve(JSON.parse(line.slice('INBOXKIT_READY '.length)) as { smtpPort: number });
    });
    child.once('exit', (code) => reject(new Error(`inboxkit serve exited with ${code}: ${err}`)));
  });
  const first = await RawSmtp.connect(ready.smtpPort);
  const ehlo = await first.hello();
  expect(ehlo.lines.some((l) => /STARTTLS/.test(l))).toBe(true);
  const second = await RawSmtp.connect(ready.smtpPort);
  expect((await second.reply()).code).toBe(421);
  const timedOut = await first.reply();
  expect(timedOut.code).toBe(421);
  expect(timedOut.text).toMatch(/timeout/i);
  await first.closed;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
});

test('inboxkit serve --help documents the bounds of a shared service, each with its default', async () => {
  const { stdout } = await run(process.execPath, [CLI, 'serve', '--help']);
  for (const [flag, fallback] of [
    ['--allowed-host', 'loopback names only'],
    ['--max-streams-per-credential', 'default 128'],
    ['--max-streams-per-address', 'default 512'],
    ['--max-guest-inboxes-per-address', 'default 10000'],
    ['--max-stored-bytes', 'default 256m'],
    ['--forward-allow', 'only API-key users may forward'],
  ]) {
    expect(stdout).toContain(flag);
    expect(stdout).toContain(fallback);
  }
});

test('inboxkit serve passes the bounds flags through, and warns that --api-key shows in ps', async () => {
  let stderr = '';
  const served = await spawnServe(
    ['--max-streams-per-credential', '1', '--max-guest-inboxes-per-address', '1', '--allowed-host', 'devbox.internal', '--api-key', `tm_${'w'.repeat(32)}`],
    { onSpawn: (child) => { running.add(child); child.stderr.on('data', (d: Buffer) => (stderr += d.toString())); } },
  );
  const api = served.ready.apiUrl;
  const created = await fetch(`${api}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(created.status).toBe(200);
  const inbox = (await created.json()) as { data: { id: string; token: string } };
  const second = await fetch(`${api}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(second.status).toBe(429);
  expect(await second.text()).toContain('--max-guest-inboxes-per-address');
  const controller = new AbortController();
  const first = await fetch(`${api}/inboxes/${inbox.data.id}/stream`, { headers: { 'x-inbox-token': inbox.data.token }, signal: controller.signal });
  expect(first.status).toBe(200);
  const refused = await fetch(`${api}/inboxes/${inbox.data.id}/stream`, { headers: { 'x-inbox-token': inbox.data.token } });
  expect(refused.status).toBe(429);
  expect(await refused.text()).toContain('--max-streams-per-credential');
  // Closed here, by the test: until then `first` stays referenced (fetch cancels a response it finds garbage-collected).
  controller.abort();
  await first.body?.cancel().catch(() => {});
  expect(stderr).toContain('--api-key shows the key');
  expect(stderr).toContain('INBOXKIT_API_KEYS');
});
