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
}
