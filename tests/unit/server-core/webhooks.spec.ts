/**
 * The node's webhook sender: where it may call, and how much one caller may
 * have in flight and per minute, whatever the target does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { callbackProblem, createWebhooks } from '../../../src/server/sms/callbacks.ts';

const local = { shared: false, allow: [], ownPorts: () => [8025, 2525] };

test('a local service calls loopback only, never its own ports; a shared one only what the operator allows', () => {
  expect(callbackProblem('http://127.0.0.1:3000/status', local)).toBeNull();
  expect(callbackProblem('http://127.0.0.1:8025/api/v1/inboxes', local)).toContain("one of the service's own");
  expect(callbackProblem('http://10.0.0.5/status', local)).toContain('not a loopback host');
  expect(callbackProblem('file:///etc/passwd', local)).toContain('not an http(s) URL');
  const shared = { shared: true, allow: ['app.internal:8443'], ownPorts: () => [] };
  expect(callbackProblem('http://127.0.0.1:5432/', shared)).toContain('not a webhook target');
  expect(callbackProblem('https://app.internal:8443/hooks', shared)).toBeNull();
  expect(callbackProblem('https://app.internal:9000/hooks', shared)).toContain('not a webhook target');
});

test('a target that never answers holds at most its caller\'s share of webhooks in flight; another caller still gets through', async () => {
  const held: Array<() => void> = [];
  const target = createServer((req, res) => held.push(() => res.end()));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
  const hooks = createWebhooks(local, { perCallerInFlight: 2, perNodeInFlight: 3, perCallerPerMinute: 100, timeoutMs: 30_000 });
  try {
    const first = [hooks.postJson('a', url, {}), hooks.postJson('a', url, {})];
    await expect(hooks.postJson('a', url, {})).rejects.toThrow('webhooks of this caller are in flight, its share');
    const other = hooks.postJson('b', url, {});
    await expect(hooks.postJson('c', url, {})).rejects.toThrow('webhooks are in flight on this node, its bound');
    expect(hooks.inFlight()).toBe(3);
    await expect.poll(() => held.length).toBe(3);
    for (const release of held) release();
    await Promise.all([...first, other]);
    expect(hooks.inFlight()).toBe(0);
  } finally {
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  }
});

test('one caller sends at most its webhooks per minute, counted whatever their targets answer', async () => {
  const target = createServer((req, res) => res.end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
  let clock = 1_000_000;
  const hooks = createWebhooks(local, { perCallerInFlight: 10, perNodeInFlight: 10, perCallerPerMinute: 3, timeoutMs: 10_000 }, () => clock);
  try {
    for (let i = 0; i < 3; i++) await hooks.postJson('a', url, {});
    await expect(hooks.postJson('a', url, {})).rejects.toThrow('in the last minute, its bound');
    clock += 61_000;
    await expect(hooks.postJson('a', url, {})).resolves.toMatchObject({ status: 200 });
  } finally {
    await new Promise<void>((resolve) => target.close(() => resolve()));
  }
});
