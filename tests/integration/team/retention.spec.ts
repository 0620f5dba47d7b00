/**
 * Retention per service (issue 40): `--inbox-ttl` is how long an inbox lives
 * with its mail, `--message-ttl` how long mail is kept however long its inbox
 * lives. The expiry sweep deletes older mail on every node of a shared
 * database, both sweeping at once without deleting anything twice.
 */
import nodemailer from 'nodemailer';
import { test, expect } from '@playwright/test';
import { resolveConfig, startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { POSTGRES_SKIP, POSTGRES_URL, freshPostgres } from '../../support/backends.ts';

const T0 = 1_800_000_000_000;

async function send(server: RunningServer, to: string, subject: string): Promise<void> {
  const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true });
  await transport.sendMail({ from: 'app@example.com', to, subject, text: subject });
  transport.close();
}

async function subjects(server: RunningServer, inbox: { id: string; token: string }): Promise<string[]> {
  const res = await fetch(`${server.apiUrl}/inboxes/${inbox.id}/messages`, { headers: { 'x-inbox-token': inbox.token } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { items: Array<{ subject: string }> } }).data.items.map((m) => m.subject);
}

async function messageCount(server: RunningServer, inbox: { id: string; token: string }): Promise<number> {
  const res = await fetch(`${server.apiUrl}/inboxes/${inbox.id}`, { headers: { 'x-inbox-token': inbox.token } });
  return ((await res.json()) as { data: { messageCount: number } }).data.messageCount;
}

const BACKENDS = [
  { name: 'SQLite', skip: null as string | null, open: async () => ({ options: {}, nodes: 1, drop: async () => {} }) },
  {
    name: 'PostgreSQL, two nodes',
    skip: POSTGRES_URL ? null : POSTGRES_SKIP,
    open: async () => {
      const db = await freshPostgres();
      return { options: { db: db.url }, nodes: 2, drop: () => db.drop() };
    },
  },
];

for (const backend of BACKENDS) {
  test(`on ${backend.name}, mail older than --message-ttl is swept while its inbox lives on, with the inbox's count kept`, async () => {
    test.skip(backend.skip !== null, backend.skip ?? '');
    const db = await backend.open();
    let now = T0;
    const servers: RunningServer[] = [];
    try {
      for (let i = 0; i < db.nodes; i++) {
        // Sweeps only when the test asks (the timer's interval is far away).
        servers.push(await startServer({ ...db.options, port: 0, smtpPort: 0, messageTtlSeconds: 60, inboxTtlSeconds: 3600, sweepIntervalMs: 3_600_000, now: () => now }));
      }
      const [a, b = a] = servers as [RunningServer, RunningServer?];
      const res = await fetch(`${a.apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const inbox = ((await res.json()) as { data: { id: string; token: string; address: string } }).data;

      await send(a, inbox.address, 'first');
      now += 30_000;
      await send(b, inbox.address, 'second');
      now += 30_001;
      // Every node sweeps at once: the first message goes once, the second stays.
      await Promise.all(servers.map((server) => server.sweepExpired()));
      expect(await subjects(b, inbox)).toEqual(['second']);
      expect(await messageCount(a, inbox)).toBe(1);

      now += 30_000;
      await Promise.all(servers.map((server) => server.sweepExpired()));
      expect(await subjects(a, inbox)).toEqual([]);
      expect(await messageCount(b, inbox)).toBe(0);
      // The inbox itself lives for its own hour, and takes new mail.
      await send(a, inbox.address, 'third');
      expect(await subjects(b, inbox)).toEqual(['third']);
    } finally {
      for (const server of servers) await server.close();
      await db.drop();
    }
  });
}

test('without --message-ttl mail lives as long as its inbox; a bad retention is refused naming the option', () => {
  expect(resolveConfig({}).operations.messageTtlSeconds).toBeNull();
  expect(resolveConfig({ messageTtlSeconds: 3600 }).operations.messageTtlSeconds).toBe(3600);
  expect(() => resolveConfig({ messageTtlSeconds: 0 })).toThrow(/messageTtlSeconds must be a whole number of seconds >= 1/);
  expect(() => resolveConfig({ messageTtlSeconds: 1.5 })).toThrow(/messageTtlSeconds/);
});
