/**
 * The greylisting fault (issue 40): the next attempt to an inbox is refused
 * with 451 4.7.1 as a greylisting receiver refuses it, the retry is accepted,
 * and other inboxes are untouched; over real SMTP conversations.
 */
import { expect, sendRaw, rawMessage, test } from '../adversarial/helpers.ts';

test('a greylisted inbox refuses the first attempt with 451 4.7.1 and accepts the retry; another inbox is untouched', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const other = await harness.createInbox();
  const put = await harness.call(`/inboxes/${inbox.id}/delivery-fault`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-inbox-token': inbox.token },
    body: JSON.stringify({ kind: 'greylist' }),
  });
  expect(put.status).toBe(200);
  expect(put.json).toMatchObject({ data: { code: 451, enhancedStatus: '4.7.1', remaining: 1 } });

  const first = await sendRaw(harness.server.smtpPort, 'app@example.test', [inbox.address], rawMessage({ to: inbox.address, subject: 'try 1' }));
  expect(first.code).toBe(451);
  expect(first.text).toMatch(/^451 4\.7\.1 Greylisted/);
  expect((await sendRaw(harness.server.smtpPort, 'app@example.test', [other.address], rawMessage({ to: other.address, subject: 'other' }))).code).toBe(250);
  const retry = await sendRaw(harness.server.smtpPort, 'app@example.test', [inbox.address], rawMessage({ to: inbox.address, subject: 'try 2' }));
  expect(retry.code).toBe(250);
  expect((await harness.listAll(inbox)).map((m) => m.subject)).toEqual(['try 2']);
});

test('a fault with an unknown kind is refused, naming the kinds there are', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const put = await harness.call(`/inboxes/${inbox.id}/delivery-fault`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-inbox-token': inbox.token },
    body: JSON.stringify({ kind: 'tarpit' }),
  });
  expect(put.status).toBe(400);
  expect(put.text).toContain('greylist');
});
