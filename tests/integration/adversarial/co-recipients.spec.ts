/**
 * A delivery fault on one inbox never hurts another recipient of the same
 * message (issue 31, finding 7): a delay holds only the faulty inbox's copy,
 * a refusal refuses only that recipient, and 421 (which closes the connection
 * for every recipient) is refused by the fault schema. Real SMTP, on the
 * project's storage backend.
 */
import { test, expect, RawSmtp, dataOf, rawMessage } from './helpers.ts';
import type { Harness } from './helpers.ts';

async function setFault(h: Harness, inbox: { id: string; token: string }, body: Record<string, unknown>) {
  return h.call(`/inboxes/${inbox.id}/delivery-fault`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-inbox-token': inbox.token }, body: JSON.stringify(body) });
}

test('a delay on one inbox holds only its copy: the co-recipient\'s copy is listed before the 250', async ({ harness }) => {
  test.setTimeout(30_000);
  const [slow, other] = [await harness.createInbox(), await harness.createInbox()];
  expect((await setFault(harness, slow, { delayMs: 3000 })).status).toBe(200);
  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  try {
    await smtp.hello();
    expect((await smtp.command('MAIL FROM:<app@adversary.test>')).code).toBe(250);
    expect((await smtp.command(`RCPT TO:<${slow.address}>`)).code).toBe(250);
    expect((await smtp.command(`RCPT TO:<${other.address}>`)).code).toBe(250);
    expect((await smtp.command('DATA')).code).toBe(354);
    const sentAt = performance.now();
    smtp.write(dataOf(rawMessage({ to: `${slow.address}, ${other.address}`, subject: 'to both' })));
    const reply = smtp.reply();
    // The co-recipient has its copy while the faulty inbox's is still held.
    await expect.poll(async () => (await harness.listAll(other)).length, { timeout: 2500 }).toBe(1);
    expect(performance.now() - sentAt).toBeLessThan(2500);
    expect(await harness.listAll(slow)).toHaveLength(0);
    expect((await reply).code).toBe(250);
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(2900);
    expect((await harness.listAll(slow)).map((m) => m.subject)).toEqual(['to both']);
  } finally {
    smtp.end();
  }
});

test('a refusal on one inbox refuses that recipient only; the co-recipient gets its copy in the same transaction', async ({ harness }) => {
  const [refusing, other] = [await harness.createInbox(), await harness.createInbox()];
  expect((await setFault(harness, refusing, { code: 451, count: 1 })).status).toBe(200);
  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  try {
    await smtp.hello();
    await smtp.command('MAIL FROM:<app@adversary.test>');
    expect((await smtp.command(`RCPT TO:<${refusing.address}>`)).code).toBe(451);
    expect((await smtp.command(`RCPT TO:<${other.address}>`)).code).toBe(250);
    expect((await smtp.command('DATA')).code).toBe(354);
    smtp.write(dataOf(rawMessage({ to: other.address, subject: 'only other' })));
    expect((await smtp.reply()).code).toBe(250);
  } finally {
    smtp.end();
  }
  expect((await harness.listAll(other)).map((m) => m.subject)).toEqual(['only other']);
  expect(await harness.listAll(refusing)).toHaveLength(0);
});

test('421, which closes the connection for every recipient, is refused as a fault with a message that says why and what to use', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const res = await setFault(harness, inbox, { code: 421 });
  expect(res.status).toBe(400);
  const error = (res.json as { error: { code: string; message: string } }).error;
  expect(error.code).toBe('validation_error');
  expect(error.message).toMatch(/^code: 421 closes the whole SMTP connection.*use 450 or 451/);
  const state = await harness.call(`/inboxes/${inbox.id}/delivery-fault`, { headers: { 'x-inbox-token': inbox.token } });
  expect(state.json).toEqual({ data: { fault: null } });
});
