/**
 * {@link TestInbox}: the `inbox` fixture's object. It wraps the client's
 * `InboxHandle` (same wait API) and makes it part of the test: every wait is a
 * report step titled with its criteria, a wait without a timeout gets the
 * test's remaining budget, and a matched message is attached to the report.
 *
 * @packageDocumentation
 */
import { inspect } from 'node:util';
import { test as base } from '@playwright/test';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { atCallSite, callLocation, captureCallSite } from '../errors/call-site.ts';
import { describeCriteria } from '../client/internal/criteria.ts';
import type { DeliveryFault, DeliveryFaultOptions, ExpectNoMessageOptions, InboxHandle, Message, MessageMatch, MessageSummary, ReceivedMessage, TestDns, WaitOptions } from '../client/index.ts';
import type { CallLocation, CallSite } from '../errors/call-site.ts';
import type { LinkCheckContext } from './link-check.ts';
import { TestMessage } from './test-message.ts';
import { TestInboxHandle } from './test-inbox-handle.ts';
import type { BrowserSource } from './render.ts';
import { openEmail } from './open.ts';
import type { OpenableMessage } from './open.ts';
import { attachMessage, attachRawSource, messageTitle } from './report.ts';
import type { MessageIndex, MessageKind } from './report.ts';

/** A call's promise, with a synchronous throw turned into a rejection that is not reported as unhandled before it is awaited. */
function started<T>(call: () => Promise<T>): Promise<T> {
  let promise: Promise<T>;
  try {
    promise = call();
  } catch (error) {
    promise = Promise.reject(error);
  }
  promise.catch(() => {});
  return promise;
}

/** What a {@link TestInbox} needs from the fixture that made it. @internal */
export interface TestInboxContext {
  /** The running test. */
  testInfo: TestInfo;
  /** The timeout of a wait that was given none, computed when the wait starts. */
  defaultTimeout(): number;
  /** Whether matched messages are attached to the report. */
  attachToReport: boolean;
  /** Counts the messages attached so far, to number the attachments. */
  nextAttachmentNumber(): number;
  /** Work kept off the test's path (attaching an email), run in order when the test's inboxes are torn down. */
  atTeardown(task: () => Promise<void>): void;
  /** The test's `request` context and `baseURL`, for `message.checkLinks()`. */
  linkCheck?: LinkCheckContext;
  /** The browser `message.render()` and the visual matchers render in. */
  renderBrowser?: BrowserSource;
  /** The test DNS of the config (`use: { inboxkit: { dns } }`), for `message.authentication()`. */
  dns?: TestDns;
  /**
   * Where to look at the inbox after a failed wait, as a sentence the wait's
   * error ends with: the report's attachments, or the viewer when the inbox is kept.
   */
  whereToLook?(handle: InboxHandle): string;
  /** How many inboxes the test has so far; with several, steps and attachments name theirs. */
  inboxCount(): number;
  /** Ids of the messages already attached to this test's report: each is attached once. */
  attachedIds: Set<string>;
  /** The test's messages on one page, attached when its inboxes are torn down. */
  messageIndex: MessageIndex;
}

/**
 * The options of a report step made at the caller's line: located there, so
 * that the report shows the spec's file and line for the step, not this file.
 * (Not `box`: Playwright 1.65 reads a boxed step's stack after an `await`, when
 * the caller's frames are gone, and would leave the failing test's error
 * without any frame; the error gets the caller's stack from {@link atSite}.)
 * Boxed only when the caller's line is unknown.
 */
export function stepOptions(site: CallSite): { box?: true; location?: CallLocation } {
  const location = callLocation(site);
  return location !== undefined ? { location } : { box: true };
}

/** `body`, whose inboxkit errors carry the caller's stack (`site`) instead of inboxkit's internals. */
export function atSite<T>(site: CallSite, body: () => Promise<T>): () => Promise<T> {
  return async () => {
    try {
      return await body();
    } catch (error) {
      throw atCallSite(error, site);
    }
  };
}

/**
 * An inbox that belongs to one test, as given by the `inbox` fixture and by
 * `createInbox()`. It is deleted when the test ends (kept when the test failed
 * and `keepOnFailure` is on).
 *
 * @example
 * ```ts
 * test('signs up', async ({ page, inbox }) => {
 *   await page.getByLabel('Email').fill(inbox.address);
 *   await page.getByRole('button', { name: 'Create account' }).click();
 *   const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
 *   await page.goto(message.link('Confirm email').href);
 * });
 * ```
 */
export class TestInbox {
  readonly #handle: InboxHandle;
  readonly #context: TestInboxContext;

  /** Made by the fixtures; use the `inbox` fixture or `createInbox()`. */
  constructor(handle: InboxHandle, context: TestInboxContext) {
    // The waits build each message once, as the TestMessage the test receives.
    this.#handle = new TestInboxHandle(handle, context);
    this.#context = context;
  }

  /** The client's handle of this inbox, for everything the fixture does not wrap. */
  get handle(): InboxHandle {
    return this.#handle;
  }

  /** Inbox id. */
  get id(): string {
    return this.#handle.id;
  }

  /** The full address to type into the application, `localPart@domain`. */
  get address(): string {
    return this.#handle.address;
  }

  /** The part before `@`. */
  get localPart(): string {
    return this.#handle.localPart;
  }

  /** The domain after `@`. */
  get domain(): string {
    return this.#handle.domain;
  }

  /** The inbox's label (the fixtures set the test's title), or `null`. */
  get label(): string | null {
    return this.#handle.label;
  }

  /** When the service deletes the inbox on its own (ISO 8601), or `null`. */
  get expiresAt(): string | null {
    return this.#handle.expiresAt;
  }

  /**
   * The timeout a wait without one would get now: the test's remaining time
   * minus a reserve for teardown (or the `waitTimeout` option, when smaller).
   */
  defaultTimeout(): number {
    return this.#context.defaultTimeout();
  }

  /** Rethrows a failed wait's error with where to look at the inbox added to its message. */
  #withViewerLink(error: unknown): never {
    const link = this.#context.whereToLook?.(this.#handle);
    if (link && error instanceof Error && !error.message.includes(link)) {
      const before = error.message;
      error.message = `${before}\n  ${link}`;
      if (error.stack?.includes(before)) error.stack = error.stack.replace(before, error.message);
    }
    throw error;
  }

  #options<O extends { timeout?: number }>(options: O | undefined): O & { timeout: number } {
    const timeout = options?.timeout ?? this.defaultTimeout();
    return { ...(options ?? ({} as O)), timeout };
  }

  /**
   * Waits for a message that matches, and returns it with `links()`, `link()`,
   * `otp()` … The wait is a report step titled `wait for email: <criteria>`;
   * without `options.timeout` it may take the test's remaining time minus a
   * reserve for teardown (or the `waitTimeout` option, when smaller), and fails
   * with a `WaitTimeoutError` before the test itself times out. The matched
   * message is attached to the report when `attachToReport` is on.
   *
   * @example
   * ```ts
   * const message = await inbox.waitForMessage({ subject: /sign-in code/i });
   * await page.getByLabel('Code').fill(message.otp());
   * ```
   */
  async waitForMessage(match?: MessageMatch, options?: WaitOptions): Promise<TestMessage> {
    const site = captureCallSite(TestInbox.prototype.waitForMessage);
    // The wait starts before the report step does, so recording the step costs the test no time.
    const waiting = started(() => this.#handle.waitForMessage(match, this.#options(options)));
    const body = async () => {
      const message = this.#forTest(await waiting.catch((error: unknown) => this.#withViewerLink(error)));
      this.#attachAtTeardown(message);
      return message;
    };
    return base.step(`wait for ${this.#noun()}${this.#where()}: ${describeCriteria(match)}`, atSite(site, body), stepOptions(site));
  }

  /**
   * Waits until `count` messages that match have arrived, and returns them in
   * arrival order. A report step like {@link TestInbox.waitForMessage}.
   */
  async waitForMessages(count: number, match?: MessageMatch, options?: WaitOptions): Promise<TestMessage[]> {
    const site = captureCallSite(TestInbox.prototype.waitForMessages);
    const waiting = started(() => this.#handle.waitForMessages(count, match, this.#options(options)));
    const body = async () => {
      const messages = (await waiting.catch((error: unknown) => this.#withViewerLink(error))).map((m) => this.#forTest(m));
      for (const message of messages) this.#attachAtTeardown(message);
      return messages;
    };
    return base.step(`wait for ${count} ${this.#noun()}${this.#noun() === 'email' ? 's' : ''}${this.#where()}: ${describeCriteria(match)}`, atSite(site, body), stepOptions(site));
  }

  #forTest(message: ReceivedMessage): TestMessage {
    return message instanceof TestMessage ? message : new TestMessage(this.#handle, message.data, this.#context.linkCheck ?? null, { dns: this.#context.dns, browser: this.#context.renderBrowser ?? null });
  }

  /**
   * Makes the local service refuse or delay this inbox's next deliveries, so
   * the test can prove the app retries or reports the failure; other inboxes
   * (other tests) are not affected, and the fault goes with the inbox at the
   * end of the test. A report step. See `InboxHandle.failDeliveries()`.
   *
   * @example
   * ```ts
   * await inbox.failDeliveries({ code: 451, count: 2 }); // 451 4.3.0 twice, then accepted
   * await inbox.failDeliveries({ code: 550 });           // 550 5.7.1 until cleared
   * await inbox.failDeliveries({ delayMs: 3_000 });      // the 250 comes 3 s late
   * ```
   */
  async failDeliveries(fault: DeliveryFaultOptions): Promise<DeliveryFault> {
    const what = [fault.code !== undefined ? `code ${fault.code}` : null, fault.count !== undefined ? `×${fault.count}` : null, fault.delayMs ? `delay ${fault.delayMs} ms` : null].filter(Boolean).join(', ');
    return base.step(`fail deliveries: ${what || 'invalid fault'}`, async () => this.#handle.failDeliveries(fault), { box: true });
  }

  /** Accepts mail for this inbox normally again. */
  async clearDeliveryFaults(): Promise<void> {
    await base.step('clear delivery faults', async () => void (await this.#handle.clearDeliveryFaults()), { box: true });
  }

  /**
   * Fails (with an `UnexpectedMessageError` naming the message) when a message
   * that matches arrives within `options.within` milliseconds. A report step
   * titled `expect no email: <criteria>`.
   */
  async expectNoMessage(match: MessageMatch | undefined, options: ExpectNoMessageOptions): Promise<void> {
    const site = captureCallSite(TestInbox.prototype.expectNoMessage);
    const body = () => this.#handle.expectNoMessage(match, options).catch((error: unknown) => this.#withViewerLink(error));
    return base.step(`expect no ${this.#noun()}${this.#where()}: ${describeCriteria(match)}`, atSite(site, body), stepOptions(site));
  }

  /** The inbox's message summaries, newest first (at most `limit`, default 100). */
  async messages(limit = 100): Promise<MessageSummary[]> {
    const items: MessageSummary[] = [];
    for await (const summary of this.#handle.messages({ limit: Math.min(100, Math.max(1, limit)) })) {
      items.push(summary);
      if (items.length >= limit) break;
    }
    return items;
  }

  /**
   * Shows a message in `page`, for clicking links inside the email or comparing
   * screenshots, and returns the email's `<body>` to click in.
   *
   * The page shows the sanitized HTML body (the text body when there is none)
   * with no network access: every request the email would make (images,
   * tracking pixels, stylesheets) is aborted. Only a top-level navigation goes
   * through — clicking a link in the email navigates the page to it, and from
   * then on the page loads normally. Links meant for a new window open in the
   * same page.
   *
   * @example
   * ```ts
   * const email = await inbox.open(page, message);
   * await email.getByRole('link', { name: 'Confirm email' }).click();
   * await expect(page.getByRole('status')).toHaveText('Email confirmed');
   * ```
   */
  async open(page: Page, message: OpenableMessage): Promise<Locator> {
    const site = captureCallSite(TestInbox.prototype.open);
    const body = async () => (await openEmail(page, message)).body;
    return base.step(`open email: ${messageTitle(message)}`, atSite(site, body), stepOptions(site));
  }

  /**
   * Attaches a message to the report (rendered HTML, text, headers, raw `.eml`)
   * when `attachToReport` is on, once per test (a message already attached,
   * or queued to be, is not attached again). The rendered page, text and
   * headers are attached now; the raw source is read and attached when the
   * test's inboxes are torn down (also when the test failed or timed out), so
   * the call does not wait for the API. The waits attach the messages they
   * return entirely at teardown: recording an attachment costs Playwright about
   * a millisecond, which a wait should not add to the test.
   */
  async attach(message: ReceivedMessage | Message): Promise<void> {
    if (!this.#claimAttachment(message)) return;
    const { testInfo } = this.#context;
    const label = this.#nextLabel(message)();
    this.#context.atTeardown(() => this.#attachRaw(label, message));
    await attachMessage(testInfo, label, message, null, this.#indexed());
  }

  /** Queues a message's attachments (rendered page, text, headers, raw `.eml`) for teardown, numbered now. */
  #attachAtTeardown(message: ReceivedMessage | Message): void {
    if (!this.#claimAttachment(message)) return;
    // Numbered now, named at teardown: by then the test has made all its inboxes.
    const labelled = this.#nextLabel(message);
    this.#context.atTeardown(async () => {
      const label = labelled();
      await attachMessage(this.#context.testInfo, label, message, null, this.#indexed());
      await this.#attachRaw(label, message);
    });
  }

  /** Whether a message is to be attached now: attaching is on and it is not in the report (or queued for it) yet. */
  #claimAttachment(message: Pick<Message, 'id'>): boolean {
    if (!this.#context.attachToReport || this.#context.attachedIds.has(message.id)) return false;
    this.#context.attachedIds.add(message.id);
    return true;
  }

  /** The next attachment's number, taken now; the label, made when called (naming the inbox when the test has several). */
  #nextLabel(message: Pick<Message, 'subject'> & { text?: string | null }): () => string {
    const number = this.#context.nextAttachmentNumber();
    return () => `${this.#noun()} ${number}${this.#where()} — ${messageTitle(message)}`;
  }

  /** ` to <address>` when the test has several inboxes (for step titles and attachments), else nothing. */
  #where(): string {
    return this.#context.inboxCount() > 1 ? ` to ${this.#handle.phoneNumber ?? this.address}` : '';
  }

  /** What this inbox receives, for step titles: `SMS` for a phone, `email` otherwise. */
  #noun(): MessageKind {
    return this.#handle.phoneNumber === null ? 'email' : 'SMS';
  }

  /** Where an attached message is listed: the test's index, as this inbox's kind. */
  #indexed(): { index: MessageIndex; kind: MessageKind } {
    return { index: this.#context.messageIndex, kind: this.#noun() };
  }

  /**
   * Reads a message's raw source and attaches it; nothing when it cannot be
   * read (the report says what was attached). A received message's own
   * reading is used, so a message the checks already read is not fetched again.
   */
  async #attachRaw(label: string, message: ReceivedMessage | Message): Promise<void> {
    const read = 'raw' in message && typeof message.raw === 'function' ? message.raw() : this.#handle.raw(message.id).then((source) => source.bytes);
    const raw = await read.then(
      (bytes) => bytes,
      () => null,
    );
    if (raw !== null) await attachRawSource(this.#context.testInfo, label, raw);
  }

  /** `{ id, address }`: what logging the inbox shows (never its token). */
  toJSON(): { id: string; address: string } {
    return { id: this.id, address: this.address };
  }

  /** `console.log(inbox)` shows the address, never the token. */
  [inspect.custom](): string {
    return `TestInbox { address: ${JSON.stringify(this.address)}, id: ${JSON.stringify(this.id)} }`;
  }
}
