/**
 * `/metrics` in the Prometheus text format (issue 40): what the intake
 * accepted and refused, by reason, the delivery latency histogram, the open
 * streams and sessions, caps reached and the drain state, counted from real
 * SMTP conversations and requests.
 */
import { RawSmtp, expect, sendRaw, rawMessage, startHarness, test } from '../adversarial/helpers.ts';

/** The value of one sample (`name{labels}`) in an exposition, or null. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

test('the counters follow what the intake accepted and refused, and the gauges what is open', async () => {
  const h = await startHarness({ metrics: true, smtpMaxConnectionsPerAddress: 2 });
  const abort = new AbortController();
  try {
    const url = h.server.url;
    const inbox = await h.createInbox();
    for (let i = 0; i < 3; i++) expect((await sendRaw(h.server.smtpPort, 'app@example.test', [inbox.address], rawMessage({ to: inbox.address, subject: `m${i}` }))).code).toBe(250);
    expect((await sendRaw(h.server.smtpPort, 'app@example.test', ['nobody@inboxkit.test'], rawMessage({ to: 'x', subject: 'lost' }))).code).toBe(550);
    const held = [await RawSmtp.connect(h.server.smtpPort), await RawSmtp.connect(h.server.smtpPort)];
    for (const s of held) expect((await s.reply()).code).toBe(220);
    const third = await RawSmtp.connect(h.server.smtpPort);
    expect((await third.reply()).code).toBe(421);
    const stream = await fetch(`${h.server.apiUrl}/inboxes/${inbox.id}/stream`, { headers: { 'x-inbox-token': inbox.token }, signal: abort.signal });
    expect(stream.status).toBe(200);

    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(sample(text, 'inboxkit_mail_accepted_total')).toBe(3);
    expect(sample(text, 'inboxkit_mail_refused_total{reason="unknown_recipient"}')).toBe(1);
    expect(sample(text, 'inboxkit_mail_refused_total{reason="cap_per_address"}')).toBe(1);
    expect(sample(text, 'inboxkit_caps_reached_total{cap="smtp_connections_per_address"}')).toBe(1);
    expect(sample(text, 'inboxkit_delivery_latency_seconds_count')).toBe(3);
    expect(sample(text, 'inboxkit_streams_open')).toBe(1);
    expect(sample(text, 'inboxkit_smtp_sessions_open')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'inboxkit_draining')).toBe(0);
    for (const s of held) s.end();
  } finally {
    abort.abort();
    await h.close();
  }
});

test('without metrics on, /metrics is a 404 that says how to turn them on; /livez and /readyz answer either way', async ({ harness }) => {
  const res = await fetch(`${harness.server.url}/metrics`);
  expect(res.status).toBe(404);
  expect(await res.text()).toContain('--metrics');
  expect((await fetch(`${harness.server.url}/livez`)).status).toBe(200);
  const ready = await fetch(`${harness.server.url}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ data: { status: 'ready' } });
});

test('while a node drains, /readyz is 503 and the drain gauge is 1', async () => {
  const h = await startHarness({ metrics: true, drainNoticeMs: 60_000, drainTimeoutMs: 60_000 });
  try {
    const drained = h.server.drain();
    const ready = await fetch(`${h.server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('draining');
    expect(sample(await (await fetch(`${h.server.url}/metrics`)).text(), 'inboxkit_draining')).toBe(1);
    void drained;
  } finally {
    await h.close();
  }
});

test('the metrics count SMTP sessions and bytes, API requests by route pattern and status, and stream events and resumes', async () => {
  const h = await startHarness({ metrics: true });
  try {
    const inbox = await h.createInbox();
    const raw = rawMessage({ to: inbox.address, subject: 'counted' });
    expect((await sendRaw(h.server.smtpPort, 'app@example.test', [inbox.address], raw)).code).toBe(250);
    expect((await fetch(`${h.server.apiUrl}/inboxes/${inbox.id}`, { headers: { 'x-inbox-token': inbox.token } })).status).toBe(200);
    expect((await fetch(`${h.server.apiUrl}/inboxes/in_nothing_here`, { headers: { 'x-inbox-token': inbox.token } })).status).toBeGreaterThanOrEqual(400);
    // A stream resumed from before the message: it replays it (one event sent), then ready.
    const abort = new AbortController();
    const stream = await fetch(`${h.server.apiUrl}/inboxes/${inbox.id}/stream`, { headers: { 'x-inbox-token': inbox.token, 'last-event-id': '0' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let seen = '';
    while (!seen.includes('event: ready')) seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();

    const text = await (await fetch(`${h.server.url}/metrics`)).text();
    expect(sample(text, 'inboxkit_smtp_events_total{event="session"}')).toBe(1);
    expect(sample(text, 'inboxkit_smtp_received_bytes_total')).toBeGreaterThanOrEqual(raw.length);
    expect(sample(text, 'inboxkit_http_requests_total{route="/api/v1/inboxes/:id",method="GET",status="2xx"}')).toBe(1);
    expect(sample(text, 'inboxkit_http_requests_total{route="/api/v1/inboxes/:id",method="GET",status="4xx"}')).toBe(1);
    expect(sample(text, 'inboxkit_http_requests_total{route="/api/v1/inboxes",method="POST",status="2xx"}')).toBe(1);
    expect(sample(text, 'inboxkit_http_request_duration_seconds_count{route="/api/v1/inboxes/:id",method="GET"}')).toBe(2);
    expect(sample(text, 'inboxkit_stream_events_total{what="resumed"}')).toBe(1);
    expect(sample(text, 'inboxkit_stream_events_total{what="event"}')).toBeGreaterThanOrEqual(2);
    // The probes and scrapes are not counted as requests.
    expect(text).not.toMatch(/route="\/metrics"|route="\/livez"/);
  } finally {
    await h.close();
  }
});

test('on a node bound to loopback, /metrics follows the API\'s Host rule: a name rebound to it is refused, saying why', async () => {
  const h = await startHarness({ metrics: true });
  try {
    const { request } = await import('node:http');
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = request(`${h.server.url}/metrics`, { headers: { host: 'evil.example' } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status.code).toBe(403);
    expect(status.body).toContain('host_not_allowed');
    expect((await fetch(`${h.server.url}/metrics`)).status).toBe(200);
  } finally {
    await h.close();
  }
});

test('an expiry sweep counts the inboxes it deleted and how long it took', async () => {
  let now = Date.now();
  const h = await startHarness({ metrics: true, now: () => now });
  try {
    await h.createInbox();
    now += 8 * 24 * 3600_000;
    expect(await h.server.sweepExpired()).toHaveLength(1);
    const text = await (await fetch(`${h.server.url}/metrics`)).text();
    expect(sample(text, 'inboxkit_expired_inboxes_deleted_total')).toBe(1);
    expect(sample(text, 'inboxkit_retention_messages_deleted_total')).toBe(0);
    expect(sample(text, 'inboxkit_sweep_duration_seconds_count')).toBeGreaterThanOrEqual(1);
  } finally {
    await h.close();
  }
});
