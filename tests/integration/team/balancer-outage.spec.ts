/**
 * When no node is ready behind the balancer — every one draining or
 * restarting at once — Debian's HAProxy, with the guide's configuration
 * (docs/team-service/haproxy.cfg), answers the API's own 503
 * `service_unavailable` with `Retry-After` instead of its HTML page. The
 * request reached no node, so the client retries it, a POST included, and a
 * test that creates its inbox in that moment gets it once a node is back.
 * HAProxy's stats page shows each node's state for a rolling restart.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { freePort, haproxyStates, haproxyStats, render, waitFor } from '../../support/team.ts';

const HAPROXY = '/usr/sbin/haproxy';

test.skip(!existsSync(HAPROXY), `needs Debian's HAProxy at ${HAPROXY} (apt-get install haproxy; .ci/run installs it)`);
test.describe.configure({ mode: 'serial' });

let node: RunningServer | null = null;
let haproxy: ChildProcess;
let dir: string;
let http: string;
let stats: string;
let nodePort: number;

/** Starts the node on its fixed port (HAProxy's configuration names it). */
async function startNode(): Promise<void> {
  node = await startServer({ port: nodePort, smtpPort: 0, domains: ['team.test'], trustProxy: ['127.0.0.1'] });
}

async function stopNode(): Promise<void> {
  await node?.close();
  node = null;
}

/** Waits until HAProxy has the node in the given state in its HTTP backend. */
async function balancerSees(state: string): Promise<void> {
  await waitFor(async () => (await haproxyStates(stats))['inboxkit_http/node1'] === state, `HAProxy to have the node ${state}`);
}

test.beforeAll(async () => {
  nodePort = await freePort();
  await startNode();
  dir = mkdtempSync(join(tmpdir(), 'inboxkit-outage-'));
  const httpPort = await freePort();
  const statsPort = await freePort();
  writeFileSync(join(dir, 'haproxy.cfg'), render('haproxy.cfg', {
    BALANCER_HTTP_PORT: String(httpPort),
    BALANCER_SMTP_PORT: String(await freePort()),
    BALANCER_STATS_PORT: String(statsPort),
    HTTP_SERVERS: `    server node1 127.0.0.1:${nodePort} check`,
    SMTP_SERVERS: `    server node1 127.0.0.1:${node!.smtpPort} send-proxy check port ${nodePort}`,
  }));
  haproxy = spawn(HAPROXY, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
  http = `http://127.0.0.1:${httpPort}`;
  stats = `http://127.0.0.1:${statsPort}`;
  await waitFor(async () => (await haproxyStates(stats))['inboxkit_http/node1'] === 'UP', 'HAProxy to have the node UP');
});

test.afterAll(async () => {
  haproxy?.kill('SIGTERM');
  await stopNode();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('with no node ready, the balancer answers the API\'s 503 service_unavailable with Retry-After, not its HTML page', async () => {
  await stopNode();
  await balancerSees('DOWN');
  try {
    const res = await fetch(`${http}/api/v1/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('service_unavailable');
    expect(body.error.message).toContain('retry after Retry-After');
  } finally {
    await startNode();
    await balancerSees('UP');
  }
});

test('a client creating an inbox while no node is ready retries the POST and gets its inbox once a node is back', async () => {
  await stopNode();
  await balancerSees('DOWN');
  const refused = async () => Number((await haproxyStats(stats))['inboxkit_http/FRONTEND']!.hrsp_5xx);
  const before = await refused();
  const client = createClient({ baseUrl: http, retry: { maxRetries: 30 } });
  try {
    const created = client.inboxes.create({});
    // The balancer has answered the POST with its 503, and the client waits out Retry-After; then the node comes back.
    await waitFor(async () => (await refused()) > before, 'the balancer to refuse the first attempt');
    await startNode();
    const inbox = await created;
    expect(inbox.address).toMatch(/@team\.test$/);
  } finally {
    await client.close();
  }
});
