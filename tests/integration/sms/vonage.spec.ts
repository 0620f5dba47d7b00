/**
 * Vonage's SMS API through the real `@vonage/server-sdk`, configured with its
 * `restHost` option.
 */
import { Vonage } from '@vonage/server-sdk';
import { test, expect } from './fixtures.ts';

test.describe('Vonage SMS API', () => {
  let vonage: Vonage;
  test.beforeEach(({ local }) => {
    vonage = new Vonage({ apiKey: 'abcd1234', apiSecret: 'secret-0123' }, { restHost: `${local.url}/sms/vonage` });
  });

  test('sms.send() texts the phone, and a long text is counted in parts as Vonage counts them', async ({ phone }) => {
    const sent = await vonage.sms.send({ to: phone.number.slice(1), from: 'Acme', text: '<#> Your Acme code: 640213\nFA+9qCX9VSu' });
    expect(sent.messageCount).toBe('1');
    expect(sent.messages[0]).toMatchObject({ to: phone.number.slice(1), status: '0' });
    const sms = await phone.waitForMessage({ from: 'Acme' });
    expect(sms.otp()).toBe('640213');
    expect(sms.headers['x-inboxkit-sms']).toBe('vonage');

    const long = `Your Acme code is 271828. ${'Thank you for choosing Acme. '.repeat(10)}`;
    const parts = await vonage.sms.send({ to: phone.number, from: 'Acme', text: long });
    expect(parts.messageCount).toBe('3');
    const whole = await phone.waitForMessage();
    expect(whole.text).toBe(long);
    expect(whole.headers['x-inboxkit-sms-segments']).toBe('3');
    expect(whole.otp()).toBe('271828');
  });

  test('bad input fails with Vonage\'s status codes, and nothing is stored', async ({ phone }) => {
    for (const [params, status] of [
      [{ to: '12025551234', from: 'Acme', text: 'x' }, '29'],
      [{ to: 'abc', from: 'Acme', text: 'x' }, '3'],
      [{ to: phone.number, from: 'Acme', text: 'x'.repeat(3201) }, '3'],
    ] as const) {
      const error = (await vonage.sms.send(params).then(() => null, (e: unknown) => e)) as { response?: { messages: Array<{ status: string; errorText: string }> } } | null;
      expect(error?.response?.messages[0]?.status, JSON.stringify(params).slice(0, 60)).toBe(status);
      expect(error?.response?.messages[0]?.errorText).toBeTruthy();
    }
    expect((await phone.handle.messages()).items).toEqual([]);
  });
});
