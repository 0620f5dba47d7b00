/**
 * The drain of a node, with the real CLI process (issue 40): on SIGTERM
 * `/readyz` fails first while `/livez` still answers; then new SMTP sessions
 * get 421 while a transaction in flight finishes with 250, the event stream
 * ends (its client resumes elsewhere from Last-Event-ID), an HTTP request in
 * flight is answered, and the process exits within its bound.
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { spawnServe } from '../../support/serve.ts';
import { RawSmtp, dataOf, openStream, rawMessage } from '../adversarial/helpers.ts';

test.describe.configure({ mode: 'serial' });

async function createInbox(apiUrl: string): Promise<{ id: string; token: string; address: string }> {
  const res = await fetch(`${apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string; token: string; address: string } }).data;
}

/** Starts a POST whose body is sent in two halves; `finish()` sends the rest and resolves with the status. */
function slowPost(url: string): { finish: () => Promise<number> } {
  const body = '{"localPart":"slow-post"}';
  const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 10));
  return {
    finish: async () => {
      req.end(body.slice(10));
      return status;
    },
  };
}

const probe = async (url: string) => (await fetch(url)).status;

/** A body read as it comes: `until(text)` resolves with everything read once it contains `text`; `rest()` with everything once it ends. */
function bodyReader(res: Response): { until: (text: string) => Promise<string>; rest: () => Promise<string> } {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let read = '';
  const more = async () => {
    const { value, done } = await reader.read();
    if (value) read += decoder.decode(value, { stream: true });
    return !done;
  };
  return {
    until: async (text) => {
      while (!read.includes(text)) if (!(await more())) throw new Error(`the body ended without ${JSON.stringify(text)}: ${JSON.stringify(read)}`);
      return read;
    },
    rest: async () => {
      while (await more());
      return read;
    },
  };
}

test('on SIGTERM readiness fails first, the stream is handed over and still delivers the message stored meanwhile, new SMTP sessions get 421 and new API requests 503 while the one in flight is stored, probes and metrics answer to the end, the request in flight is answered, and the process exits 0', { tag: '@heavy' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'inboxkit-drain-'));
  let child: ChildProcess | undefined;
  try {
    const served = await spawnServe(['--db', join(dir, 'inbox.db'), '--drain-notice', '3s', '--drain-timeout', '20s', '--no-mcp', '--metrics', '--trust-proxy', '127.0.0.1'], { onSpawn: (c) => (child = c) });
    const { url, apiUrl, smtpPort } = served.ready;
    expect(await probe(`${url}/readyz`)).toBe(200);
    expect(await probe(`${url}/livez`)).toBe(200);
    const inbox = await createInbox(apiUrl);

    // In flight when the signal comes: a stream, an SMTP transaction, an HTTP request.
    const stream = await fetch(`${apiUrl}/inboxes/${inbox.id}/stream`, { headers: { accept: 'text/event-stream', 'x-inbox-token': inbox.token } });
    expect(stream.status).toBe(200);
    const streamBody = bodyReader(stream);
    await streamBody.until('event: ready');
    const smtp = await RawSmtp.connect(smtpPort);
    await smtp.hello();
    expect((await smtp.command('MAIL FROM:<app@example.test>')).code).toBe(250);
    expect((await smtp.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
    const post = slowPost(`${apiUrl}/inboxes`);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child!.kill('SIGTERM');
    await expect.poll(() => probe(`${url}/readyz`)).toBe(503);
    expect(await probe(`${url}/livez`)).toBe(200);

    // Once the notice is over the stream is handed over: told to reconnect at once (retry: 20, and
    // event: handover, on which inboxkit's client opens its next connection), and it still delivers:
    // the transaction begun before the drain finishes now, and its message comes on this stream.
    expect(await streamBody.until('event: handover')).toMatch(/retry: 20\n\nevent: handover\ndata: \{\}\n\n$/);
    expect((await smtp.command('DATA')).code).toBe(354);
    smtp.write(dataOf(rawMessage({ to: inbox.address, subject: 'sent while draining' })));
    expect((await smtp.reply()).code).toBe(250);
    // Then it ends cleanly by itself (this client never leaves: it knows nothing of the hand-over).
    expect(await streamBody.rest()).toMatch(/event: handover\ndata: \{\}\n\nevent: message\nid: 1\ndata: \{[^\n]*"subject":"sent while draining"[^\n]*\}\n\n$/);
    const next = await smtp.command('MAIL FROM:<app@example.test>');
    expect(next.code).toBe(421);

    // Once the notice is over, a new session is refused, saying why.
    await expect
      .poll(async () => {
        const late = await RawSmtp.connect(smtpPort).catch(() => null);
        if (!late) return 'closed';
        const reply = await late.reply().catch(() => null);
        late.end();
        return reply?.code === 421 ? reply.text : String(reply?.code);
      }, { timeout: 15_000 })
      .toMatch(/^421 .*4\.3\.2 .*draining/);
    // The operator's endpoints answer to the end of the drain; a new API request is told 503, to retry elsewhere.
    expect(await probe(`${url}/livez`)).toBe(200);
    expect(await probe(`${url}/metrics`)).toBe(200);
    expect(await probe(`${url}/healthz`)).toBe(200);
    const late = await fetch(`${apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('1');
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
    // The same request through the balancer (--trust-proxy, X-Forwarded-For) is closed unanswered: HAProxy sends it to another node.
    await expect(fetch(`${apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '127.0.0.9' }, body: '{}' })).rejects.toThrow();

    expect(await post.finish()).toBe(200);
    expect(await exited).toBe(0);

    // Nothing was lost: the next node on the same database has the message, and a stream resumed from before it replays it.
    const again = await spawnServe(['--db', join(dir, 'inbox.db'), '--no-mcp'], { onSpawn: (c) => (child = c) });
    const replay = new AbortController();
    const resumed = await openStream(`${again.ready.apiUrl}/inboxes/${inbox.id}/stream`, { 'x-inbox-token': inbox.token, 'last-event-id': '0' }, replay.signal);
    let subject = '';
    for await (const event of resumed.events) {
      if ('event' in event && event.event === 'message') {
        subject = (JSON.parse(event.data) as { subject: string }).subject;
        break;
      }
    }
    replay.abort();
    expect(subject).toBe('sent while draining');
  } finally {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a drain with an SMTP client stuck in a transaction cuts it at --drain-timeout, and the process has exited within a second more', { tag: '@heavy' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'inboxkit-drain-'));
  let child: ChildProcess | undefined;
  try {
    const served = await spawnServe(['--db', join(dir, 'inbox.db'), '--drain-notice', '1s', '--drain-timeout', '3s', '--no-mcp', '--log-level', 'info'], { onSpawn: (c) => (child = c) });
    const inbox = await createInbox(served.ready.apiUrl);
    // A transaction begun and never finished: the client goes silent after RCPT TO.
    const stuck = await RawSmtp.connect(served.ready.smtpPort);
    await stuck.hello();
    expect((await stuck.command('MAIL FROM:<app@example.test>')).code).toBe(250);
    expect((await stuck.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);

    const exited = new Promise<{ code: number | null; at: number }>((resolve) => child!.once('exit', (code) => resolve({ code, at: Date.now() })));
    const signalled = Date.now();
    child!.kill('SIGTERM');
    const { code, at } = await exited;
    // Exit 0: the drain ended by itself (the watchdog at timeout + 1 s exits 1), having cut the stuck session.
    expect(code).toBe(0);
    expect(served.errors()).toMatch(/"cutSmtpSessions":1[,}].*drain: done/);
    expect(at - signalled, 'SIGTERM to exit, against --drain-timeout 3s + 1 s').toBeLessThanOrEqual(4000);
    stuck.end();
  } finally {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
