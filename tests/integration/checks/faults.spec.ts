/**
 * Delivery faults on demand: a test tells the local service to refuse or delay
 * mail for one inbox, over real SMTP, without touching any other inbox.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { test, expect } from '../client/fixtures.ts';
import { DeliveryFaultsUnsupportedError, InboxkitError, NotFoundError, createClient } from '../../../src/client/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';

interface Attempt {
  ok: boolean;
  code: number | null;
  response: string;
  accepted: string[];
  rejected: string[];
}

/** One delivery attempt on a fresh SMTP connection, as a retrying sender makes it. */
async function attempt(server: RunningServer, to: string | string[], subject: string): Promise<Attempt> {
  const transport = nodemailer.createTransport({ host: server.smtpHost, port: server.smtpPort, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ from: 'app@example.test', to, subject, text: subject });
    return { ok: true, code: 250, response: info.response, accepted: info.accepted.map(String), rejected: info.rejected.map(String) };
  } catch (error) {
    const e = error as { responseCode?: number; response?: string; rejected?: string[] };
    return { ok: false, code: e.responseCode ?? null, response: e.response ?? String(error), accepted: [], rejected: (e.rejected ?? []).map(String) };
  } finally {
    transport.close();
  }
}

test.describe('delivery faults', () => {
  test('a 451 fault of count 2 defers exactly two attempts and the third is delivered, while another inbox receives every message', async ({ guest, server }) => {
    const faulty = await guest.inboxes.create({ label: 'faulty' });
    const other = await guest.inboxes.create({ label: 'other' });
    const fault = await faulty.failDeliveries({ code: 451, count: 2 });
    expect(fault).toMatchObject({ inboxId: faulty.id, code: 451, enhancedStatus: '4.3.0', remaining: 2, delayMs: 0 });

    const results: Attempt[] = [];
    for (let i = 1; i <= 3; i++) {
      results.push(await attempt(server, faulty.address, `attempt ${i}`));
      const normal = await attempt(server, other.address, `other ${i}`);
      expect(normal.ok, `mail to the other inbox during attempt ${i}: ${normal.response}`).toBe(true);
    }

    expect(results.map((r) => r.code)).toEqual([451, 451, 250]);
    expect(results[0]?.response).toMatch(/^451 4\.3\.0 /);
    expect(results[1]?.response).toMatch(/^451 4\.3\.0 /);
    const delivered = await faulty.waitForMessage({ subject: 'attempt 3' }, { timeout: 10_000 });
    expect(delivered.subject).toBe('attempt 3');
    const stored = await faulty.messages();
    expect(stored.items.map((m) => m.subject)).toEqual(['attempt 3']);
    expect((await other.waitForMessages(3, undefined, { timeout: 10_000 })).map((m) => m.subject)).toEqual(['other 1', 'other 2', 'other 3']);
    expect(await faulty.deliveryFault()).toBeNull();
  });

  test('a message to a faulty and a healthy inbox is refused only for the faulty one', async ({ guest, server }) => {
    const faulty = await guest.inboxes.create();
    const healthy = await guest.inboxes.create();
    await faulty.failDeliveries({ code: 550 });

    const result = await attempt(server, [faulty.address, healthy.address], 'to both');

    expect(result.ok).toBe(true);
    expect(result.accepted).toEqual([healthy.address]);
    expect(result.rejected).toEqual([faulty.address]);
    expect((await healthy.waitForMessage({ subject: 'to both' }, { timeout: 10_000 })).subject).toBe('to both');
    expect((await faulty.messages()).items).toHaveLength(0);
  });

  test('a 550 fault without a count refuses every attempt with 5.7.1 until it is cleared', async ({ guest, server }) => {
    const inbox = await guest.inboxes.create();
    await inbox.failDeliveries({ code: 550 });

    const first = await attempt(server, inbox.address, 'one');
    const second = await attempt(server, inbox.address, 'two');
    expect([first.code, second.code]).toEqual([550, 550]);
    expect(first.response).toMatch(/^550 5\.7\.1 /);
    expect((await inbox.deliveryFault())?.remaining).toBeNull();

    expect(await inbox.clearDeliveryFaults()).toEqual({ inboxId: inbox.id, cleared: true });
    const third = await attempt(server, inbox.address, 'three');
    expect(third.ok).toBe(true);
    expect((await inbox.messages()).items.map((m) => m.subject)).toEqual(['three']);
  });

  test('a fault may name its own enhanced status code and text', async ({ guest, server }) => {
    const inbox = await guest.inboxes.create();
    await inbox.failDeliveries({ code: 451, enhancedStatus: '4.7.1', message: 'Greylisted, come back later', count: 1 });
    const result = await attempt(server, inbox.address, 'greylisted');
    expect(result.response).toBe('451 4.7.1 Greylisted, come back later');
  });

  test('a delay-only fault holds the 250 and stores the message when it is sent', async ({ guest, server }) => {
    const inbox = await guest.inboxes.create();
    await inbox.failDeliveries({ delayMs: 400, count: 1 });

    const started = performance.now();
    const sending = attempt(server, inbox.address, 'slow');
    const result = await sending;
    const waited = performance.now() - started;

    expect(result.ok).toBe(true);
    // A lower bound: the reply cannot come before the delay (no upper bound is asserted).
    expect(waited).toBeGreaterThanOrEqual(390);
    expect((await inbox.messages()).items.map((m) => m.subject)).toEqual(['slow']);
    const fast = await attempt(server, inbox.address, 'fast');
    expect(fast.ok).toBe(true);
  });

  test('invalid faults are refused with the field named, before any request', async ({ guest }) => {
    const inbox = await guest.inboxes.create();
    const cases: Array<[unknown, RegExp]> = [
      [{ code: 250 }, /code must be an SMTP reply code from 400 to 599.*\(got 250\)/],
      [{ code: 600 }, /code must be an SMTP reply code from 400 to 599.*\(got 600\)/],
      [{ code: 451, count: -1 }, /count must be at least 1.*\(got -1\)/],
      [{ code: 451, count: 0 }, /count must be at least 1/],
      [{ code: 451, count: 1.5 }, /count/],
      [{ code: 451, delayMs: -5 }, /delayMs must be 0 or more/],
      [{}, /give a reply code .* or a delay/],
      [{ code: 451, enhancedStatus: '5.7.1' }, /enhancedStatus must have the class of the reply code/],
      [{ code: 451, retries: 2 }, /unrecognized key/i],
    ];
    for (const [fault, message] of cases) {
      const error = await inbox.failDeliveries(fault as never).then(() => null, (e: unknown) => e);
      expect(error, JSON.stringify(fault)).toBeInstanceOf(InboxkitError);
      expect((error as Error).message, JSON.stringify(fault)).toMatch(message);
    }
    expect(await inbox.deliveryFault()).toBeNull();
  });

  test('the service itself refuses an invalid fault with 400 validation_error naming the field', async ({ guest, server }) => {
    const inbox = await guest.inboxes.create();
    const res = await fetch(`${server.apiUrl}/inboxes/${inbox.id}/delivery-fault`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-inbox-token': inbox.token ?? '' },
      body: JSON.stringify({ code: 451, count: -2 }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('validation_error');
    expect(body.error.message).toMatch(/^count: must be at least 1/);
  });

  test('another credential cannot set a fault on an inbox it cannot see', async ({ guest, keyed }) => {
    const inbox = await guest.inboxes.create();
    const error = await keyed.faults.set(inbox.id, { code: 451 }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('inbox_not_found');
  });

  test('a server without the extension gets a clear "does not support delivery faults" error', async () => {
    const statuses = [404, 405];
    for (const status of statuses) {
      const hosted = createServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: status === 404 ? 'not_found' : 'method_not_allowed', message: 'No such route.' } }));
      });
      await new Promise<void>((resolve) => hosted.listen(0, '127.0.0.1', resolve));
      const client = createClient({ baseUrl: `http://127.0.0.1:${(hosted.address() as AddressInfo).port}`, apiKey: 'tm_hosted_key_0123456789abcdef', retry: false });
      try {
        const error = await client.faults.set('inbox-1', { code: 451 }).then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(DeliveryFaultsUnsupportedError);
        expect((error as DeliveryFaultsUnsupportedError).status).toBe(status);
        expect((error as Error).message).toMatch(/This server does not support delivery faults/);
      } finally {
        await client.close();
        await new Promise<void>((resolve) => hosted.close(() => resolve()));
      }
    }
  });

  test('the OpenAPI document describes the endpoint as an inboxkit extension', async ({ server }) => {
    const doc = (await (await fetch(`${server.apiUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const path = doc.paths['/inboxes/{id}/delivery-fault'];
    expect(Object.keys(path ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    expect(path?.put?.['x-inboxkit-extension']).toBe(true);
  });
});
