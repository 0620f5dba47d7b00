/**
 * Sender authentication offline (issue 30): DKIM, SPF, DMARC verified by the
 * real mailauth on mail sent over real SMTP, against a test DNS. Nothing is
 * looked up on the network: a name the map lacks does not exist.
 */
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { test, expect } from '../client/fixtures.ts';
import { InboxkitError } from '../../../src/client/index.ts';
import type { InboxkitClient, TestDns } from '../../../src/client/index.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PUBLIC_KEY = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

// #region dns
/** The DNS of a sender that does everything right. */
const GOOD_DNS: TestDns = {
  'mail._domainkey.acme.example': `v=DKIM1; k=rsa; p=${PUBLIC_KEY}`,
  'acme.example': ['v=spf1 ip4:127.0.0.1 -all'],
  '_dmarc.acme.example': 'v=DMARC1; p=reject',
};
// #endregion

/** A message signed by nodemailer's dkim option, as bytes. */
async function signed(options: { domain?: string; from?: string; text?: string } = {}): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: { domainName: options.domain ?? 'acme.example', keySelector: 'mail', privateKey: PRIVATE_KEY } });
  const info = await transport.sendMail({ from: options.from ?? 'Acme <hello@acme.example>', to: 'user@inboxkit.example.com', subject: 'Signed', text: options.text ?? 'Your order has shipped.' });
  return info.message as Buffer;
}

async function deliver(guest: InboxkitClient, send: (mail: SendMailOptions) => Promise<void>, raw: Buffer, mailFrom = 'bounce@acme.example') {
  const inbox = await guest.inboxes.create();
  await send({ envelope: { from: mailFrom, to: inbox.address }, raw });
  return inbox.waitForMessage({}, { timeout: 10_000 });
}

test.describe('sender authentication', () => {
  test('a message signed with the key in the test DNS passes DKIM, SPF and DMARC', async ({ guest, send }) => {
    const message = await deliver(guest, send, await signed());
    // #region report
    const report = await message.authentication({ dns: GOOD_DNS });
    expect(report.dkim).toEqual([{ domain: 'acme.example', selector: 'mail', result: 'pass', reason: null, aligned: true }]);
    expect(report.spf).toEqual({ result: 'pass', domain: 'acme.example', reason: null });
    expect(report.dmarc).toMatchObject({ result: 'pass', domain: 'acme.example', policy: 'reject', reason: null });
    expect(report.arc.result).toBe('none');
    expect(report.session).toEqual({ mailFrom: 'bounce@acme.example', clientAddress: '127.0.0.1', helo: expect.any(String) });
    // #endregion
  });

  test('a body changed after signing fails DKIM, and the reason says so', async ({ guest, send }) => {
    const raw = (await signed()).toString('utf8').replace('Your order has shipped.', 'Your order has NOT shipped.');
    const message = await deliver(guest, send, Buffer.from(raw));
    const [dkim] = (await message.authentication({ dns: GOOD_DNS })).dkim;
    expect(dkim?.result).not.toBe('pass');
    expect(dkim?.reason).toMatch(/^body hash did not verify: the body was changed after signing/);
  });

  test('a selector missing from the test DNS is named with the record to add', async ({ guest, send }) => {
    const message = await deliver(guest, send, await signed());
    const { 'mail._domainkey.acme.example': _key, ...withoutKey } = GOOD_DNS;
    const report = await message.authentication({ dns: withoutKey });
    expect(report.dkim[0]?.reason).toMatch(/^no key at mail\._domainkey\.acme\.example in the test DNS: add/);
    // SPF still passes and aligns, so DMARC passes on it alone.
    expect(report.dmarc.result).toBe('pass');
  });

  test('a signature of another domain is not aligned with the From domain, and DMARC fails saying so', async ({ guest, send }) => {
    const message = await deliver(guest, send, await signed({ domain: 'mailer.example' }), 'bounce@mailer.example');
    const report = await message.authentication({
      dns: { 'mail._domainkey.mailer.example': `v=DKIM1; k=rsa; p=${PUBLIC_KEY}`, 'mailer.example': 'v=spf1 ip4:127.0.0.1 -all', '_dmarc.acme.example': 'v=DMARC1; p=quarantine' },
    });
    expect(report.dkim[0]).toMatchObject({ domain: 'mailer.example', result: 'pass', aligned: false });
    expect(report.dmarc).toMatchObject({ result: 'fail', policy: 'quarantine' });
    expect(report.dmarc.reason).toContain('From domain acme.example not aligned with d=mailer.example');
  });

  test('SPF passes, fails and soft-fails by the test DNS record for the client address', async ({ guest, send }) => {
    const message = await deliver(guest, send, await signed());
    const spf = async (record: string, clientAddress?: string) => (await message.authentication({ dns: { ...GOOD_DNS, 'acme.example': record }, ...(clientAddress ? { clientAddress } : {}) })).spf;
    expect((await spf('v=spf1 ip4:127.0.0.1 -all')).result).toBe('pass');
    const failed = await spf('v=spf1 ip4:192.0.2.10 -all');
    expect(failed.result).toBe('fail');
    expect(failed.reason).toMatch(/127\.0\.0\.1 is not permitted by the SPF record of acme\.example/);
    expect((await spf('v=spf1 ip4:192.0.2.10 ~all')).result).toBe('softfail');
    expect((await spf('v=spf1 ip4:192.0.2.10 -all', '192.0.2.10')).result).toBe('pass');
    const none = await message.authentication({ dns: {} });
    expect(none.spf.result).toBe('none');
    expect(none.dmarc.result).toBe('none');
    expect(none.dmarc.reason).toMatch(/no DMARC record at _dmarc\.acme\.example in the test DNS/);
  });

  test('an unsigned message has no DKIM result to pass, and DMARC fails without an aligned pass', async ({ guest, send }) => {
    const inbox = await guest.inboxes.create();
    await send({ envelope: { from: 'bounce@other.example', to: inbox.address }, from: 'hello@acme.example', to: inbox.address, subject: 'Plain', text: 'hi' });
    const message = await inbox.waitForMessage({ subject: 'Plain' }, { timeout: 10_000 });
    const report = await message.authentication({ dns: { ...GOOD_DNS, 'other.example': 'v=spf1 ip4:127.0.0.1 -all' } });
    expect(report.dkim).toEqual([expect.objectContaining({ result: 'none', reason: expect.stringMatching(/no DKIM-Signature header/) })]);
    expect(report.spf).toMatchObject({ result: 'pass', domain: 'other.example' });
    expect(report.dmarc.result).toBe('fail');
    expect(report.dmarc.reason).toMatch(/no DKIM signature passes.*not aligned with the SPF domain other\.example/);
  });

  test('malformed test DNS records are refused with the name and what is wrong', async ({ guest, send }) => {
    const message = await deliver(guest, send, await signed());
    const cases: Array<[TestDns, RegExp]> = [
      [{ 'mail._domainkey.acme.example': 'v=DKIM1; k=rsa' }, /"mail\._domainkey\.acme\.example" is a DKIM key record without a p= tag/],
      [{ '_dmarc.acme.example': 'p=reject' }, /"_dmarc\.acme\.example" is a DMARC record that does not start with 'v=DMARC1;'/],
      [{ 'mx.acme.example': { A: ['not-an-ip'] } }, /"mx\.acme\.example" has an A record that is not an IPv4 address/],
      [{ 'acme.example': { MX: ['mx.acme.example'] } }, /MX record "mx\.acme\.example" that is not '<priority> <host>'/],
      [{ 'acme.example': { SRV: ['x'] } as never }, /records of type "SRV", which the test DNS does not know/],
      [{ 'acme.example': [42] as never }, /has a TXT record that is not a string \(42\)/],
    ];
    for (const [dns, error] of cases) {
      const failure = await message.authentication({ dns }).then(() => null, (e: unknown) => e);
      expect(failure, JSON.stringify(dns)).toBeInstanceOf(InboxkitError);
      expect((failure as Error).message).toMatch(error);
    }
  });
});
