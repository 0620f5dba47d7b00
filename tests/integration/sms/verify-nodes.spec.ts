/**
 * Twilio Verify's state is kept in the store: a verification started on one
 * service node is checked on another over the same database (a SQLite file
 * shared by two services, and PostgreSQL when the tests have one), through
 * the real `twilio` SDK.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { freshPostgres, POSTGRES_SKIP, POSTGRES_URL } from '../../support/backends.ts';
import { ACCOUNT_SID, AUTH_TOKEN, twilioAt } from './sdks.ts';

const NODE_OPTIONS = { port: 0, smtpPort: 0, rateLimit: false as const };

/** A phone made on `node`: its number and inbox token. */
async function createPhone(node: RunningServer): Promise<{ number: string; id: string; token: string }> {
  const res = await fetch(`${node.url}/api/v1/phones`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const { data } = (await res.json()) as { data: { id: string; token: string; phoneNumber: string } };
  return { number: data.phoneNumber, id: data.id, token: data.token };
}

/** The texts of a phone's messages, read on `node`, oldest first. */
async function textsOn(node: RunningServer, phone: { id: string; token: string }): Promise<string[]> {
  const list = (await (await fetch(`${node.url}/api/v1/inboxes/${phone.id}/messages`, { headers: { 'x-inbox-token': phone.token } })).json()) as { data: { items: Array<{ id: string }> } };
  const texts: string[] = [];
  for (const item of [...list.data.items].reverse()) {
    const message = (await (await fetch(`${node.url}/api/v1/messages/${item.id}`, { headers: { 'x-inbox-token': phone.token } })).json()) as { data: { text: string } };
    texts.push(message.data.text);
  }
  return texts;
}

/** Starts on node A with a service made on A, reads the code on B, checks a wrong and the right code on B. */
async function startOnOneCheckOnTheOther(a: RunningServer, b: RunningServer): Promise<void> {
  const onA = twilioAt(`${a.url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN);
  const onB = twilioAt(`${b.url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN);
  const phone = await createPhone(a);
  const service = await onA.verify.v2.services.create({ friendlyName: 'Acme', codeLength: 8 });
  const started = await onA.verify.v2.services(service.sid).verifications.create({ to: phone.number, channel: 'sms' });
  // The resend on the other node keeps the code and is counted with the first send.
  const resent = await onB.verify.v2.services(service.sid).verifications.create({ to: phone.number, channel: 'sms' });
  expect(resent.sid).toBe(started.sid);
  expect(resent.sendCodeAttempts).toHaveLength(2);

  const texts = await textsOn(b, phone);
  expect(texts).toHaveLength(2);
  // The service made on A names the text sent by B: services are stored too.
  expect(texts[1]).toMatch(/^Your Acme verification code is: \d{8}$/);
  expect(texts[1]).toBe(texts[0]);
  const code = texts[0]!.slice(-8);

  const wrong = await onB.verify.v2.services(service.sid).verificationChecks.create({ to: phone.number, code: code === '00000000' ? '11111111' : '00000000' });
  expect(wrong.status).toBe('pending');
  const check = await onA.verify.v2.services(service.sid).verificationChecks.create({ verificationSid: started.sid, code });
  expect(check).toMatchObject({ status: 'approved', valid: true, sid: started.sid });
  // Approved is spent on every node.
  const again = await onB.verify.v2.services(service.sid).verificationChecks.create({ to: phone.number, code }).then(() => null, (e: unknown) => e as { status: number; code: number });
  expect({ status: again?.status, code: again?.code }).toEqual({ status: 404, code: 20404 });
}

test('a verification started on one service is checked on another sharing its SQLite file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'inboxkit-verify-'));
  const dbPath = join(dir, 'shared.db');
  const a = await startServer({ ...NODE_OPTIONS, dbPath });
  const b = await startServer({ ...NODE_OPTIONS, dbPath });
  try {
    await startOnOneCheckOnTheOther(a, b);
  } finally {
    await Promise.all([a.close(), b.close()]);
    await rm(dir, { recursive: true, force: true });
  }
});

test('a verification started on one node is checked on another node of one PostgreSQL database', async () => {
  test.skip(POSTGRES_URL === null, POSTGRES_SKIP);
  const db = await freshPostgres();
  const [a, b] = await Promise.all([startServer({ ...NODE_OPTIONS, db: db.url }), startServer({ ...NODE_OPTIONS, db: db.url })]);
  try {
    await startOnOneCheckOnTheOther(a, b);
  } finally {
    await Promise.all([a.close(), b.close()]);
    await db.drop();
  }
});
