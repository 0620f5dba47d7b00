/**
 * The service's authentication check (`POST /messages/{id}/authentication`,
 * an extension, issue 30 item 5): a DKIM-signed message sent over real SMTP,
 * verified by the real mailauth inside the service against the test DNS in
 * the request body only — a name the map lacks does not exist, and the
 * network is never asked.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import dns from 'node:dns';
import nodemailer from 'nodemailer';
import { test, expect, apiOf, KEY_A, KEY_B } from './fixtures.ts';
import type { Api } from './fixtures.ts';
import type { RunningServer } from '../../../src/server/index.ts';

const run = promisify(execFile);

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PUBLIC_KEY = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

const GOOD_DNS = {
  'mail._domainkey.acme.example': `v=DKIM1; k=rsa; p=${PUBLIC_KEY}`,
  'acme.example': ['v=spf1 ip4:127.0.0.1 -all'],
  '_dmarc.acme.example': 'v=DMARC1; p=reject',
};

/** A message signed by nodemailer's dkim option (optionally changed after signing), delivered over SMTP to a new inbox of KEY_A; its id. */
async function deliverSigned(server: RunningServer, api: Api, change?: (raw: string) => string): Promise<string> {
  const inbox = (await api('POST', '/inboxes', { bearer: KEY_A, body: {} })).body.data as { id: string; address: string };
  const signer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: { domainName: 'acme.example', keySelector: 'mail', privateKey: PRIVATE_KEY } });
  const info = await signer.sendMail({ from: 'Acme <hello@acme.example>', to: inbox.address, subject: 'Signed', text: 'Your order has shipped.' });
  const raw = (info.message as Buffer).toString('utf8');
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
  await smtp.sendMail({ envelope: { from: 'bounce@acme.example', to: inbox.address }, raw: change ? change(raw) : raw });
  smtp.close();
  const list = (await api('GET', `/inboxes/${inbox.id}/messages`, { bearer: KEY_A })).body.data as { items: Array<{ id: string }> };
  return list.items[0]!.id;
}

test.describe('POST /messages/{id}/authentication', () => {
  test('a message signed with the key in the test DNS passes DKIM, SPF and DMARC, with the envelope recorded at intake', async ({ server }) => {
    const api = apiOf(server);
    const id = await deliverSigned(server, api);
    const answer = await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body: { dns: GOOD_DNS } });
    expect(answer.status).toBe(200);
    const data = answer.body.data;
    expect(data.dkim).toEqual([{ domain: 'acme.example', selector: 'mail', result: 'pass', reason: null, aligned: true }]);
    expect(data.spf).toEqual({ result: 'pass', domain: 'acme.example', reason: null });
    expect(data.dmarc).toMatchObject({ result: 'pass', domain: 'acme.example', policy: 'reject', reason: null });
    expect(data.arc.result).toBe('none');
    expect(data.session).toEqual({ mailFrom: 'bounce@acme.example', clientAddress: '127.0.0.1', helo: expect.any(String) });
    expect(data.authenticationResults).toContain('dkim=pass');
  });

  test('a body changed after signing fails DKIM, and the reason says so', async ({ server }) => {
    const api = apiOf(server);
    const id = await deliverSigned(server, api, (raw) => raw.replace('Your order has shipped.', 'Your order has NOT shipped.'));
    const [dkim] = (await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body: { dns: GOOD_DNS } })).body.data.dkim;
    expect(dkim.result).not.toBe('pass');
    expect(dkim.reason).toMatch(/^body hash did not verify: the body was changed after signing/);
  });

  test('a selector missing from the test DNS is "no key", and the network is never asked for it', async ({ server }) => {
    const api = apiOf(server);
    const id = await deliverSigned(server, api);
    const { 'mail._domainkey.acme.example': _key, ...withoutKey } = GOOD_DNS;
    // Any lookup through Node's resolver during the check is recorded (and answered as a failure).
    const asked: string[] = [];
    const original = { resolve: dns.promises.resolve, resolveTxt: dns.promises.resolveTxt, resolve4: dns.promises.resolve4, resolveMx: dns.promises.resolveMx };
    const spy = (which: string) => async (name: string) => {
      asked.push(`${which} ${name}`);
      throw Object.assign(new Error('the network was asked'), { code: 'ECONNREFUSED' });
    };
    Object.assign(dns.promises, { resolve: spy('resolve'), resolveTxt: spy('resolveTxt'), resolve4: spy('resolve4'), resolveMx: spy('resolveMx') });
    let data;
    try {
      data = (await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body: { dns: withoutKey } })).body.data;
    } finally {
      Object.assign(dns.promises, original);
    }
    expect(asked).toEqual([]);
    expect(data.dkim[0].reason).toMatch(/^no key at mail\._domainkey\.acme\.example in the test DNS: add/);
    expect(data.lookups).toContainEqual({ name: 'mail._domainkey.acme.example', type: 'TXT', found: false });
    // SPF still passes and aligns, so DMARC passes on it alone.
    expect(data.dmarc.result).toBe('pass');
  });

  test("another caller's message is 404, like one that does not exist", async ({ server }) => {
    const api = apiOf(server);
    const id = await deliverSigned(server, api);
    const other = await api('POST', `/messages/${id}/authentication`, { bearer: KEY_B, body: { dns: GOOD_DNS } });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('message_not_found');
    expect((await api('POST', '/messages/msg_nope/authentication', { bearer: KEY_A, body: { dns: GOOD_DNS } })).status).toBe(404);
  });

  test('a malformed map is 400 naming the record and the form it should have', async ({ server }) => {
    const api = apiOf(server);
    const id = await deliverSigned(server, api);
    const noP = await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body: { dns: { 'mail._domainkey.acme.example': 'v=DKIM1; k=rsa' } } });
    expect(noP.status).toBe(400);
    expect(noP.body.error.code).toBe('validation_error');
    expect(noP.body.error.message).toContain('"mail._domainkey.acme.example" is a DKIM key record without a p= tag');
    const badA = await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body: { dns: { 'mx.acme.example': { A: 'not-an-ip' } } } });
    expect(badA.status).toBe(400);
    expect(badA.body.error.message).toContain('has an A record that is not an IPv4 address');
    for (const body of [{ dns: 'acme.example' }, {}, { dns: { 'acme.example': 42 } }, { dns: { 'acme.example': { SRV: 'x' } } }]) {
      const answer = await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('validation_error');
    }
    const tooMany = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`n${i}.acme.example`, 'v=spf1 -all']));
    expect((await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body: { dns: tooMany } })).status).toBe(400);
  });
});

test('without mailauth installed, the check is 400 authentication_unavailable naming npm install mailauth', async () => {
  const child = fileURLToPath(new URL('./authentication-unavailable-child.ts', import.meta.url));
  const { stdout } = await run(process.execPath, [child], { timeout: 30_000 });
  const answer = JSON.parse(stdout) as { status: number; body: { error: { code: string; message: string } } };
  expect(answer.status).toBe(400);
  expect(answer.body.error.code).toBe('authentication_unavailable');
  expect(answer.body.error.message).toContain('`npm install mailauth`');
});
