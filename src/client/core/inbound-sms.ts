/**
 * The options and result of `phone.send()`: an inbound SMS posted to the app's
 * webhook as the provider posts it.
 *
 * @packageDocumentation
 */

/** What `phone.send()` needs to reach the app. */
export interface InboundSmsOptions {
  /** The app's webhook for incoming messages (its Twilio number's "A message comes in" URL). */
  webhook: string;
  /** The auth token the app validates signatures with (`TWILIO_AUTH_TOKEN`). */
  authToken: string;
  /**
   * The app's number the SMS is sent to (`To`).
   * @defaultValue '+15005550006'
   */
  to?: string;
  /**
   * The account sid in the request.
   * @defaultValue a made-up `AC…` sid
   */
  accountSid?: string;
  /**
   * Milliseconds to wait for the app's answer.
   * @defaultValue 10000
   */
  timeout?: number;
  /**
   * Twilio's STOP filtering, on in every Twilio account unless support turned it off: a
   * one-word opt-out text (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT, REVOKE)
   * opts the phone out before the app hears of it, so the app's replies and later texts
   * to it are refused (21610); an opt-in (START, YES, UNSTOP) opts it back in. `false`
   * for an app whose account handles these words itself: every reply is then texted.
   * @defaultValue true
   */
  stopFiltering?: boolean;
}

/** What the app answered. */
export interface InboundSmsResult {
  /** The `SM…` sid the SMS was sent with. */
  messageSid: string;
  /** The HTTP status of the app's answer. */
  status: number;
  /** The app's answer (TwiML, usually). */
  body: string;
  /** The texts of the `<Message>` replies in the TwiML, in order. */
  replies: string[];
  /**
   * The replies that were not texted to the phone because it has opted out (Twilio
   * refuses them with 21610): after STOP, or with `failSms('unsubscribed')`.
   */
  undelivered: string[];
  /** What STOP filtering made of the text: `opt-out`, `opt-in`, or `null` for any other text (or with `stopFiltering: false`). */
  keyword: 'opt-out' | 'opt-in' | null;
}
