/**
 * Several service nodes on one PostgreSQL database: what one node does, the
 * other sees; streams see every message whichever node received it; a node
 * killed mid-intake loses nothing it acknowledged; a database restart costs
 * no event; an email template registered through one node renders a send
 * through the other, and a Resend idempotency key holds across both.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test, expect } from '@playwright/test';
import nodemailer from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { freshPostgres, ownClusterSkip, POSTGRES_SKIP, POSTGRES_URL, startOwnCluster } from '../../support/backends.ts';
import type { TestDatabase } from '../../support/backends.ts';
import { spawnServe } from '../../support/serve.ts';
import { createInbox, getJson, inOrderWithoutGaps, listAll, recordCallerEvents, recordStream, sendMany } from './cluster.ts';
import sendgridMail from '@sendgrid/mail';
import { Client } from '@sendgrid/client';
import { Resend } from 'resend';

const { MailService } = sendgridMail as unknown as { MailService: new () => typeof sendgridMail };

const OPERATOR = `tmo_${'o'.repeat(32)}`;
const NODE_OPTIONS = { rateLimit: false as const, inboxTtlSeconds: null, maxMessagesPerInbox: null, operatorToken: OPERATOR };

test('an unreachable database at start is an error naming the URL without its password', async () => {
  const error = await startServer({ db: 'postgres://alice:s3cret@127.0.0.1:1/inboxkit' }).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toContain('postgres://alice:***@127.0.0.1:1/inboxkit');
  expect(error?.message).not.toContain('s3cret');
});

test.describe('two nodes on one PostgreSQL', () => {
  test.skip(POSTGRES_URL === null, POSTGRES_SKIP);
  let db: TestDatabase;
  const nodes: RunningServer[] = [];

  test.beforeEach(async () => {
    db = await freshPostgres();
    // Started together: the migrations run once, under the advisory lock.
    nodes.push(...(await Promise.all([startServer({ db: db.url, ...NODE_OPTIONS }), startServer({ db: db.url, ...NODE_OPTIONS })])));
  });

  test.afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
    await db.drop();
  });

  test('an inbox created on one node is used on the other, and mail to each node streams from the other, whole with include=message', async () => {
    const [a, b] = nodes as [RunningServer, RunningServer];
    const inbox = await createInbox(a.apiUrl);
    expect((await getJson(b.apiUrl, `/inboxes/${inbox.id}`, inbox)).status).toBe(200);
    const onA = await recordStream(a.apiUrl, inbox);
    const onB = await recordStream(b.apiUrl, inbox, { includeMessage: true });
    try {
      await sendMany(a.smtpPort, inbox.address, 'via-a', 1);
      await onB.until(1);
      await sendMany(b.smtpPort, inbox.address, 'via-b', 1);
      await onA.until(2);
      await onB.until(2);
      expect(onB.seqs).toEqual([1, 2]);
      expect(onA.seqs).toEqual([1, 2]);
      expect([onB.subjects.get(1), onB.subjects.get(2)]).toEqual(['via-a-0000', 'via-b-0000']);
      // The message stored on A reaches B's include=message stream whole, as does B's own.
      expect([onB.whole.get(1), onB.whole.get(2)]).toEqual([true, true]);
      expect([onA.whole.get(1), onA.whole.get(2)]).toEqual([false, false]);
      // Deleting it on B ends the stream on A.
      const del = await fetch(`${b.apiUrl}/inboxes/${inbox.id}`, { method: 'DELETE', headers: { 'x-inbox-token': inbox.token } });
      expect(del.status).toBe(200);
      await expect.poll(() => onA.ended).toBe('inbox.deleted');
      expect((await getJson(a.apiUrl, `/inboxes/${inbox.id}`, inbox)).status).toBe(401);
    } finally {
      onA.close();
      onB.close();
    }
  });

  test('a delivery fault set through one node is applied by the other node\'s SMTP intake, and its count is shared', async () => {
    const [a, b] = nodes as [RunningServer, RunningServer];
    const inbox = await createInbox(a.apiUrl);
    const put = await fetch(`${a.apiUrl}/inboxes/${inbox.id}/delivery-fault`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-inbox-token': inbox.token },
      body: JSON.stringify({ code: 451, count: 2 }),
    });
    expect(put.status).toBe(200);
    const send = async (node: RunningServer) => {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: node.smtpPort, secure: false, ignoreTLS: true });
      try {
        await transport.sendMail({ from: 'app@example.test', to: inbox.address, subject: 'faulty', text: 'x' });
        return 250;
      } catch (error) {
        return (error as { responseCode?: number }).responseCode ?? -1;
      } finally {
        transport.close();
      }
    };
    expect(await send(b)).toBe(451);
    expect((await getJson(b.apiUrl, `/inboxes/${inbox.id}/delivery-fault`, inbox)).body.data).toMatchObject({ fault: { code: 451, remaining: 1 } });
    expect(await send(a)).toBe(451);
    expect(await send(b)).toBe(250);
    expect((await getJson(a.apiUrl, `/inboxes/${inbox.id}/delivery-fault`, inbox)).body.data).toEqual({ fault: null });
  });

  test('the caller-wide event stream on one node hears of inboxes created, mailed and deleted on the other', async () => {
    const [a, b] = nodes as [RunningServer, RunningServer];
    const onB = await recordCallerEvents(b.apiUrl, { authorization: `Bearer ${OPERATOR}` });
    try {
      const inbox = await createInbox(a.apiUrl);
      await onB.until((e) => e.event === 'inbox.created' && e.data.id === inbox.id);
      await sendMany(a.smtpPort, inbox.address, 'via-a', 1);
      await onB.until((e) => e.event === 'message' && e.data.inboxId === inbox.id);
      const del = await fetch(`${a.apiUrl}/inboxes/${inbox.id}`, { method: 'DELETE', headers: { 'x-inbox-token': inbox.token } });
      expect(del.status).toBe(200);
      await onB.until((e) => e.event === 'inbox.deleted' && e.data.inboxId === inbox.id);
      expect(onB.events.map((e) => e.event)).toEqual(['inbox.created', 'message', 'inbox.deleted']);
      expect((onB.events[1]!.data.message as { subject: string }).subject).toBe('via-a-0000');
    } finally {
      onB.close();
    }
  });

  test('a template registered on one node renders the SendGrid send the other takes, and its removal holds on both', async () => {
    const [a, b] = nodes as [RunningServer, RunningServer];
    const put = await fetch(`${a.url}/email/templates/sendgrid/d-shared`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ subject: 'Welcome, {{name}}', html: '<p>Your code is {{code}}</p>' }) });
    expect(put.status).toBe(200);
    const inbox = await createInbox(a.apiUrl);
    const client = new Client();
    client.setApiKey('SG.test');
    client.setDefaultRequest('baseUrl', `${b.url}/email/sendgrid`);
    const mail = new MailService();
    mail.setClient(client);
    await mail.send({ to: inbox.address, from: 'a@acme.test', templateId: 'd-shared', dynamicTemplateData: { name: 'Ada', code: '818283' } });
    await expect.poll(async () => (await listAll(a.apiUrl, inbox)).map((m) => m.subject)).toEqual(['Welcome, Ada']);
    const [message] = await listAll(a.apiUrl, inbox);
    const read = (await getJson(a.apiUrl, `/messages/${message!.id}`, inbox)).body.data as { html: string };
    expect(read.html).toContain('Your code is 818283');

    expect((await fetch(`${b.url}/email/templates/sendgrid/d-shared`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${a.url}/email/templates/sendgrid/d-shared`, { method: 'DELETE' })).status).toBe(404);
  });

  test('a Resend send repeated under its Idempotency-Key through the other node answers the first id and sends once', async () => {
    const [a, b] = nodes as [RunningServer, RunningServer];
    const inbox = await createInbox(a.apiUrl);
    const email = { from: 'a@acme.test', to: inbox.address, subject: 'Once', text: 'code 404040' };
    const [first, again] = [await new Resend('re_test', { baseUrl: `${a.url}/email/resend` }).emails.send(email, { idempotencyKey: 'signup-42' }), await new Resend('re_test', { baseUrl: `${b.url}/email/resend` }).emails.send(email, { idempotencyKey: 'signup-42' })];
    expect(again.data?.id).toBe(first.data?.id);
    await expect.poll(async () => (await listAll(b.apiUrl, inbox)).length).toBe(1);
    const other = await new Resend('re_test', { baseUrl: `${b.url}/email/resend` }).emails.send({ ...email, subject: 'Changed' }, { idempotencyKey: 'signup-42' });
    expect(other.error?.name).toBe('invalid_idempotent_request');
  });

  test('4 concurrent senders x 250 messages over both nodes arrive complete and in seq order in every stream, listing and raw source @heavy', async () => {
    test.setTimeout(180_000);
    const [a, b] = nodes as [RunningServer, RunningServer];
    const inbox = await createInbox(b.apiUrl);
    const streams = await Promise.all([recordStream(a.apiUrl, inbox), recordStream(b.apiUrl, inbox)]);
    try {
      const sent = (
        await Promise.all([
          sendMany(a.smtpPort, inbox.address, 's1', 250),
          sendMany(b.smtpPort, inbox.address, 's2', 250),
          sendMany(a.smtpPort, inbox.address, 's3', 250),
          sendMany(b.smtpPort, inbox.address, 's4', 250),
        ])
      ).flat();
      expect(sent).toHaveLength(1000);
      for (const stream of streams) {
        await stream.until(1000);
        expect(stream.seqs).toHaveLength(1000);
        expect(inOrderWithoutGaps(stream.seqs)).toBe(true);
        expect(new Set(stream.subjects.values())).toEqual(new Set(sent));
      }
      for (const node of nodes) {
        const listed = await listAll(node.apiUrl, inbox);
        expect(listed.map((m) => m.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => 1000 - i));
        expect(new Set(listed.map((m) => m.subject))).toEqual(new Set(sent));
      }
      // The raw source of each message is its own (read alternately from both nodes).
      const listed = await listAll(a.apiUrl, inbox);
      for (const [i, message] of listed.entries()) {
        const node = nodes[i % 2]!;
        const raw = await fetch(`${node.apiUrl}/messages/${message.id}/raw`, { headers: { 'x-inbox-token': inbox.token } });
        expect(await raw.text()).toContain(`Subject: ${message.subject}\r\n`);
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

test.describe('a node killed mid-intake', () => {
  test.skip(POSTGRES_URL === null, POSTGRES_SKIP);

  test('loses no message it acknowledged, and streams on the surviving node see every message @heavy', async () => {
    test.setTimeout(120_000);
    const db = await freshPostgres();
    const survivor = await startServer({ db: db.url, ...NODE_OPTIONS });
    let child: { kill(signal: NodeJS.Signals): boolean } | null = null;
    try {
      const victim = await spawnServe(['--db', db.url, '--rate-limit', 'off', '--ttl', 'never', '--log-level', 'silent'], { onSpawn: (c) => (child = c) });
      const inbox = await createInbox(survivor.apiUrl);
      const stream = await recordStream(survivor.apiUrl, inbox);
      try {
        const acknowledged: string[] = [];
        const toVictim = sendMany(victim.ready.smtpPort, inbox.address, 'victim', 400, {
          onAccepted: (subject) => {
            acknowledged.push(subject);
            if (acknowledged.length === 100) victim.child.kill('SIGKILL');
          },
        }).catch(() => null);
        const toSurvivor = await sendMany(survivor.smtpPort, inbox.address, 'survivor', 100);
        await toVictim;
        expect(acknowledged.length).toBeGreaterThanOrEqual(100);
        const listed = await listAll(survivor.apiUrl, inbox);
        const subjects = new Set(listed.map((m) => m.subject));
        for (const subject of [...acknowledged, ...toSurvivor]) expect(subjects.has(subject), subject).toBe(true);
        // Every stored message reached the stream on the survivor, in order, once.
        await stream.until(listed.length);
        expect(stream.seqs).toEqual(Array.from({ length: listed.length }, (_, i) => i + 1));
      } finally {
        stream.close();
      }
    } finally {
      (child as { kill(signal: NodeJS.Signals): boolean } | null)?.kill('SIGKILL');
      await survivor.close();
      await db.drop();
    }
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test.describe('a PostgreSQL restart mid-stream', () => {
  const skip = ownClusterSkip();
  test.skip(skip !== null, skip ?? '');

  test('is survived with no missed or repeated event; meanwhile the API answers 503 and SMTP 451 @heavy', async () => {
    test.setTimeout(120_000);
    const cluster = await startOwnCluster(await freePort());
    const nodes: RunningServer[] = [];
    try {
      nodes.push(await startServer({ db: cluster.url, ...NODE_OPTIONS }), await startServer({ db: cluster.url, ...NODE_OPTIONS }));
      const [a, b] = nodes as [RunningServer, RunningServer];
      const inbox = await createInbox(a.apiUrl);
      const stream = await recordStream(b.apiUrl, inbox);
      // The caller-wide stream has no replay: after the bus's gap it lists again and sends what it missed.
      const callerWide = await recordCallerEvents(b.apiUrl, { authorization: `Bearer ${OPERATOR}` });
      try {
        await sendMany(a.smtpPort, inbox.address, 'before', 20);
        await stream.until(20);

        await cluster.down();
        const during = await getJson(b.apiUrl, `/inboxes/${inbox.id}`, inbox);
        expect(during.status).toBe(503);
        expect(during.body.error?.code).toBe('service_unavailable');
        const refused = await sendMany(a.smtpPort, inbox.address, 'down', 1).then(
          () => null,
          (e: { responseCode?: number; response?: string }) => e,
        );
        expect(refused?.responseCode).toBe(451);
        expect(refused?.response).toContain('4.3.0');

        // Senders retry while the database comes back.
        const sending = Promise.all([
          sendMany(a.smtpPort, inbox.address, 'after-a', 20, { retry: true }),
          sendMany(b.smtpPort, inbox.address, 'after-b', 20, { retry: true }),
        ]);
        await new Promise((r) => setTimeout(r, 300));
        await cluster.up();
        await sending;

        await stream.until(60);
        expect(stream.seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
        expect((await listAll(b.apiUrl, inbox)).length).toBe(60);

        const messageSeqs = () =>
          callerWide.events.filter((e) => e.event === 'message' && e.data.inboxId === inbox.id).map((e) => (e.data.message as { seq: number }).seq);
        await expect.poll(() => new Set(messageSeqs()).size, { timeout: 30_000 }).toBe(60);
        expect(messageSeqs().length).toBe(60);
        const created = await createInbox(a.apiUrl);
        await callerWide.until((e) => e.event === 'inbox.created' && e.data.id === created.id);
        expect(callerWide.ended).toBe(false);
      } finally {
        stream.close();
        callerWide.close();
      }
    } finally {
      await Promise.all(nodes.map((n) => n.close()));
      await cluster.stop();
    }
  });
});
