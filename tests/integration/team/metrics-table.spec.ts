/**
 * The metrics table of docs/team-service.md against a node's real
 * exposition, both ways (issue 47): every metric the table names is exposed
 * with its kind and labels, every counter with enumerated label values has
 * each of them at zero from the start, and every `inboxkit_` metric exposed
 * is in the table; prom-client's own process metrics keep their usual names.
 */
import { readFileSync } from 'node:fs';
import { expect, rawMessage, sendRaw, startHarness, test } from '../adversarial/helpers.ts';

const GUIDE = readFileSync(new URL('../../../docs/team-service.md', import.meta.url), 'utf8');

/** The guide's metrics table: one row per metric named in it (a row may name several). */
function tableRows(): Array<{ name: string; kind: string; labels: string[]; values: string[]; postgresOnly: boolean }> {
  const start = GUIDE.indexOf('| metric | kind | labels | what it is |');
  expect(start, 'docs/team-service.md has its metrics table').toBeGreaterThanOrEqual(0);
  const lines = GUIDE.slice(start).split('\n');
  const rows = lines.slice(2, lines.findIndex((l, i) => i > 1 && !l.startsWith('|')));
  return rows.flatMap((row) => {
    const [names, kind, labels, what] = row.split('|').slice(1, -1).map((cell) => cell.trim());
    const ticked = (cell = '') => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    return ticked(names).map((name) => ({ name, kind: kind ?? '', labels: ticked(labels), values: ticked(what).filter((v) => /^[a-z_0-9][a-z_0-9-]*$/.test(v)), postgresOnly: (what ?? '').includes('PostgreSQL only') }));
  });
}

/** The value of one sample (`name{labels}`) in an exposition, or null. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

/** The exposition's metrics: kind, and each sample's labels. */
function exposition(text: string): Map<string, { kind: string; samples: Array<Record<string, string>> }> {
  const metrics = new Map<string, { kind: string; samples: Array<Record<string, string>> }>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) metrics.set(type[1]!, { kind: type[2]!, samples: [] });
    const sample = /^([a-zA-Z_:][\w:]*?)(?:_bucket|_sum|_count)?(?:\{(.*)\})? \S+$/.exec(line);
    if (!sample || line.startsWith('#')) continue;
    const base = [...metrics.keys()].find((name) => line.startsWith(`${name}{`) || line.startsWith(`${name} `) || line.startsWith(`${name}_`));
    if (!base) continue;
    const labels = Object.fromEntries([...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    metrics.get(base)!.samples.push(labels);
  }
  return metrics;
}

test('the guide\'s metrics table and a fresh node\'s /metrics name the same metrics, kinds and labels, every enumerated counter at zero from the start', async () => {
  const h = await startHarness({ metrics: true });
  try {
    // Scraped before any request: the route-labelled HTTP series exist already.
    const text = await (await fetch(`${h.server.url}/metrics`)).text();
    const exposed = exposition(text);
    const rows = tableRows();
    const onPostgres = Boolean(h.server.config.databaseUrl);
    for (const row of rows.filter((r) => r.name.startsWith('inboxkit_'))) {
      const metric = exposed.get(row.name);
      if (row.postgresOnly && !onPostgres) {
        expect(metric, `${row.name} is for PostgreSQL only`).toBeUndefined();
        continue;
      }
      expect(metric, `${row.name} (in the guide's table) is exposed`).toBeDefined();
      expect(metric!.kind, `${row.name}'s kind`).toBe(row.kind);
      expect(metric!.samples.length, `${row.name} has a sample from the start`).toBeGreaterThan(0);
      for (const sample of metric!.samples) expect(Object.keys(sample).filter((l) => l !== 'le').sort(), `${row.name}'s labels`).toEqual([...row.labels].sort());
      if (row.kind === 'counter' && row.labels.length === 1 && row.values.length > 0) {
        const label = row.labels[0]!;
        expect(metric!.samples.map((s) => s[label]).sort(), `${row.name}: every ${label} the guide lists, at zero from the start, and no other`).toEqual([...row.values].sort());
        for (const line of text.split('\n').filter((l) => l.startsWith(`${row.name}{`))) expect(line, 'a fresh node has counted nothing').toMatch(/ 0$/);
      }
    }
    // A fresh node: its sweeps have deleted nothing yet, and its database holds nothing.
    expect(sample(text, 'inboxkit_expired_inboxes_deleted_total')).toBe(0);
    for (const what of ['inboxes', 'phones', 'messages']) expect(sample(text, `inboxkit_stored_${what}`), `inboxkit_stored_${what}`).toBe(0);
    // Every route of the route table, with each method it answers, at each status class; `unmatched` with every method.
    const requests = exposed.get('inboxkit_http_requests_total')!.samples;
    const routes = [...new Set(requests.map((r) => `${r.method} ${r.route}`))];
    expect(routes).toEqual(expect.arrayContaining(['POST /api/v1/inboxes', 'GET /api/v1/inboxes/:id/stream', 'DELETE /api/v1/messages/:id', 'POST /sms/twilio/api/2010-04-01/Accounts/:accountSid/Messages.json', 'POST /email/resend/emails', 'GET /']));
    expect(routes.filter((r) => r.endsWith(' unmatched')).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'other'].map((m) => `${m} unmatched`).sort());
    for (const route of routes) expect(requests.filter((r) => `${r.method} ${r.route}` === route).map((r) => r.status).sort(), route).toEqual(['2xx', '3xx', '4xx', '5xx']);
    for (const line of text.split('\n').filter((l) => l.startsWith('inboxkit_http_requests_total{'))) expect(line, 'a fresh node has counted nothing').toMatch(/ 0$/);
    expect(sample(text, 'inboxkit_http_request_duration_seconds_count{route="/api/v1/inboxes",method="POST"}')).toBe(0);
    const documented = new Set(rows.map((r) => r.name));
    const undocumented = [...exposed.keys()].filter((name) => name.startsWith('inboxkit_') && !documented.has(name));
    expect(undocumented, 'every inboxkit_ metric exposed is in the guide\'s table').toEqual([]);
    // prom-client's own metrics by their usual names, as the table's last row says.
    expect(exposed.has('process_cpu_seconds_total')).toBe(true);
    expect(exposed.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect([...exposed.keys()].filter((name) => name.startsWith('inboxkit_process_'))).toEqual([]);
    expect(text).toMatch(/^inboxkit_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m);
  } finally {
    await h.close();
  }
});

test('a node\'s gauges count the inboxes, phones and messages its database holds, and its requests by route and status class', async () => {
  const h = await startHarness({ metrics: true });
  try {
    const [first] = [await h.createInbox(), await h.createInbox()];
    const phone = await h.call('/phones', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"country":"FR"}' });
    expect(phone.status).toBe(200);
    expect((await sendRaw(h.server.smtpPort, 'app@example.test', [first!.address], rawMessage({ to: first!.address, subject: 'counted' }))).code).toBe(250);
    expect((await h.call('/inboxes/in_unknown', { headers: { 'x-inbox-token': first!.token } })).status).toBe(404);
    const text = await (await fetch(`${h.server.url}/metrics`)).text();
    const expected = {
      inboxkit_stored_inboxes: 2,
      inboxkit_stored_phones: 1,
      inboxkit_stored_messages: 1,
      'inboxkit_http_requests_total{route="/api/v1/inboxes",method="POST",status="2xx"}': 2,
      'inboxkit_http_requests_total{route="/api/v1/phones",method="POST",status="2xx"}': 1,
      'inboxkit_http_requests_total{route="/api/v1/inboxes/:id",method="GET",status="4xx"}': 1,
      'inboxkit_http_requests_total{route="/api/v1/inboxes/:id",method="GET",status="2xx"}': 0,
    };
    expect(Object.fromEntries(Object.keys(expected).map((series) => [series, sample(text, series)]))).toEqual(expected);
  } finally {
    await h.close();
  }
});
