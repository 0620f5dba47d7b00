/**
 * {@link TestPhone}: the `phone` fixture's object, a {@link TestInbox} with a
 * phone number, that can also text the app.
 *
 * @packageDocumentation
 */
import { test as base } from '@playwright/test';
import { captureCallSite } from '../errors/call-site.ts';
import { postInboundSms, stopKeyword } from '../client/internal/inbound-sms.ts';
import { ApiError } from '../client/index.ts';
import type { DeliveryFault, InboundSmsOptions, InboundSmsResult, InboxHandle, PhonesResource } from '../client/index.ts';
import { TestInbox, atSite, stepOptions } from './test-inbox.ts';
import type { TestInboxContext } from './test-inbox.ts';

/** Whether a phone's delivery fault is the opt-out one (`failSms('unsubscribed')`, or a STOP). */
const isOptedOut = (fault: DeliveryFault | null): boolean => fault !== null && fault.code === 550 && fault.enhancedStatus === '5.7.1';

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
   * returns the reply (STOP, YES, HELP flows). As Twilio's STOP filtering
   * does, a one-word STOP (STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT,
   * REVOKE) opts the phone out first — the app's replies then and its later
   * texts to the phone are refused with 21610 (`undelivered` lists them) —
   * and START, YES or UNSTOP opts it back in; `stopFiltering: false` turns
   * this off. A report step.
   *
   * @example
   * ```ts
   * const answer = await phone.send('HELP', { webhook: 'http://127.0.0.1:3000/twilio/sms', authToken: 'test-token' });
   * expect(answer.status).toBe(200);
   * expect((await phone.waitForMessage()).text).toContain('Reply STOP to unsubscribe');
   * ```
   */
  async send(text: string, options: InboundSmsOptions): Promise<InboundSmsResult> {
    const site = captureCallSite(TestPhone.prototype.send);
    const body = async () => {
      const keyword = options?.stopFiltering === false ? null : stopKeyword(text);
      // As Twilio does, the opt-out or opt-in takes effect before the app hears of the text.
      if (keyword === 'opt-out') await this.handle.failDeliveries({ code: 550, enhancedStatus: '5.7.1' });
      if (keyword === 'opt-in' && isOptedOut(await this.handle.deliveryFault())) await this.handle.clearDeliveryFaults();
      const result = await postInboundSms(this.number, text, options);
      const undelivered: string[] = [];
      for (const reply of result.replies) {
        try {
          await this.#phones.text(this.number, reply, options.to ?? '+15005550006');
        } catch (error) {
          // The phone has opted out: Twilio refuses the reply (21610), the app's answer stands.
          if (!(error instanceof ApiError && error.code === 'recipient_opted_out')) throw error;
          undelivered.push(reply);
        }
      }
      return { ...result, undelivered, keyword };
    };
    return base.step(`send SMS to the app: ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`, atSite(site, body), stepOptions(site));
  }

  /**
   * Makes the next SMS to this phone fail as each provider API reports it,
   * for `count` texts (every one until cleared when left out): `invalid`
   * (refused: Twilio 21211, Verify 60200, SNS `InvalidParameter`, Vonage
   * status 6), `unsubscribed` (Twilio 21610, Verify 60410, Vonage status 7;
   * SNS accepts it and never delivers), `undeliverable` (accepted and never
   * stored; Twilio reports `undelivered` with 30003 to the StatusCallback).
   * The table per provider is in docs/phones.md. Kept in the phone's delivery
   * fault (`clearDeliveryFaults()` ends it). A report step.
   *
   * @example
   * ```ts
   * await phone.failSms('unsubscribed');
   * ```
   */
  async failSms(kind: 'invalid' | 'unsubscribed' | 'undeliverable', options: { count?: number } = {}): Promise<DeliveryFault> {
    const enhancedStatus = kind === 'invalid' ? '5.1.1' : kind === 'unsubscribed' ? '5.7.1' : '5.4.4';
    return this.failDeliveries({ code: 550, enhancedStatus, ...(options.count !== undefined ? { count: options.count } : {}) });
  }

  /** Holds the next SMS to this phone `delayMs` before it arrives (the provider answers at once), for `count` texts. A report step. */
  async delaySms(delayMs: number, options: { count?: number } = {}): Promise<DeliveryFault> {
    return this.failDeliveries({ delayMs, ...(options.count !== undefined ? { count: options.count } : {}) });
  }

  /** The phone number to type into the application, in E.164 (`+12025550123`). */
  get number(): string {
    const number = this.handle.phoneNumber;
    if (number === null) throw new Error('inboxkit: this TestPhone was made from an inbox without a phone number');
    return number;
  }
}
