/**
 * {@link TestPhone}: the `phone` fixture's object, a {@link TestInbox} with a
 * phone number, that can also text the app.
 *
 * @packageDocumentation
 */
import { test as base } from '@playwright/test';
import { captureCallSite } from '../client/internals.ts';
import { postInboundSms } from '../client/internals.ts';
import type { InboundSmsOptions, InboundSmsResult, InboxHandle, PhonesResource } from '../client/index.ts';
import { TestInbox, atSite, stepOptions } from './test-inbox.ts';
import type { TestInboxContext } from './test-inbox.ts';

/**
 * A phone that belongs to one test, as given by the `phone` fixture and by
 * `createPhone()`: an inbox with a phone number, whose SMS are read with the
 * same waits, matchers and `otp()` as email. Deleted when the test ends.
 *
 * @example
 * ```ts
 * test('verifies the phone', async ({ page, phone }) => {
 *   await page.getByLabel('Phone').fill(phone.number);
 *   await page.getByRole('button', { name: 'Send code' }).click();
 *   const sms = await phone.waitForMessage();
 *   await page.getByLabel('Code').fill(sms.otp());
 * });
 * ```
 */
export class TestPhone extends TestInbox {
  readonly #phones: PhonesResource;

  /** Made by the fixtures; use the `phone` fixture or `createPhone()`. */
  constructor(handle: InboxHandle, context: TestInboxContext, phones: PhonesResource) {
    super(handle, context);
    this.#phones = phones;
  }

  /**
   * Texts the app from this phone: a POST to the app's incoming-SMS webhook
   * in Twilio's format, signed with `authToken` as Twilio signs it (the app's
   * `twilio.validateRequest()` passes). Each `<Message>` of the TwiML the app
   * answers is texted back to this phone, so the next `waitForMessage()`
   * returns the reply (STOP, YES, HELP flows). A report step.
   *
   * @example
   * ```ts
   * const answer = await phone.send('STOP', { webhook: 'http://127.0.0.1:3000/twilio/sms', authToken: 'test-token' });
   * expect(answer.status).toBe(200);
   * expect((await phone.waitForMessage()).text).toContain('unsubscribed');
   * ```
   */
  async send(text: string, options: InboundSmsOptions): Promise<InboundSmsResult> {
    const site = captureCallSite(TestPhone.prototype.send);
    const body = async () => {
      const result = await postInboundSms(this.number, text, options);
      for (const reply of result.replies) await this.#phones.text(this.number, reply, options.to ?? '+15005550006');
      return result;
    };
    return base.step(`send SMS to the app: ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`, atSite(site, body), stepOptions(site));
  }

  /** The phone number to type into the application, in E.164 (`+12025550123`). */
  get number(): string {
    const number = this.handle.phoneNumber;
    if (number === null) throw new Error('inboxkit: this TestPhone was made from an inbox without a phone number');
    return number;
  }
}
