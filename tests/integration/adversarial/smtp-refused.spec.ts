/**
 * A refused SMTP connection gives its descriptor back at once: a client that
 * opens 2,100 connections from one address and never closes any keeps only the
 * per-address cap's worth open in the service, whose HTTP side (`/livez`) still
 * answers with its descriptor limit (1,024) below what the client opened.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { test, expect } from '@playwright/test';
import { spawnServe } from '../../support/serve.ts';

test.skip(process.platform !== 'linux', 'counts the service\'s descriptors in /proc');

const PER_ADDRESS = 20;
const CONNECTIONS = 2100;
const BATCH = 100;
/**
 * Descriptors a service may open beyond its baseline and the sessions it serves
 * (worker threads starting late, the HTTP request's); a batch of refused
 * connections the service only half-closed holds 80, more than this.
 */
const SLACK = 60;

/** Opens a connection that never closes its side and never speaks; resolves with its first reply code. */
function idleConnection(port: number, sockets: net.Socket[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    sockets.push(socket);
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.includes('\r\n')) resolve(Number(text.slice(0, 3)));
    });
    socket.on('error', reject);
  });
}

const descriptorsOf = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

test('2,100 idle connections from one address past its cap hold no descriptor of the service, and /livez still answers', async () => {
  test.setTimeout(180_000);
  let child: ChildProcessWithoutNullStreams | null = null;
  const sockets: net.Socket[] = [];
  try {
    const served = await spawnServe(['--smtp-max-connections-per-address', String(PER_ADDRESS)], { maxDescriptors: 1024, onSpawn: (c) => (child = c) });
    const pid = served.child.pid!;
    expect((await fetch(`${served.ready.url}/livez`)).status).toBe(200);
    const baseline = descriptorsOf(pid);
    const codes: number[] = [];
    for (let opened = 0; opened < CONNECTIONS; opened += BATCH) {
      codes.push(...(await Promise.all(Array.from({ length: BATCH }, () => idleConnection(served.ready.smtpPort, sockets)))));
      // Read the moment the batch's replies are in: a refused socket the service only half-closed would still be counted.
      const held = descriptorsOf(pid);
      expect(held, `after ${opened + BATCH} connections the service held ${held} descriptors (baseline ${baseline}, ${PER_ADDRESS} sessions served)`).toBeLessThanOrEqual(baseline + PER_ADDRESS + SLACK);
    }
    expect(codes.filter((c) => c === 220)).toHaveLength(PER_ADDRESS);
    expect(codes.filter((c) => c === 421)).toHaveLength(CONNECTIONS - PER_ADDRESS);
    const live = await fetch(`${served.ready.url}/livez`);
    expect(live.status).toBe(200);
  } finally {
    for (const socket of sockets) socket.destroy();
    (child as ChildProcessWithoutNullStreams | null)?.kill('SIGKILL');
  }
});
